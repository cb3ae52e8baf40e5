// Looks up symbols that a loaded shared object defines but does not export, in its ELF symbol
// table (.symtab) read from its file. HotSpot's libjvm.so keeps .symtab in the stock builds
// (Debian's, Temurin's, Oracle's); where it was stripped, the look-up finds nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace jvmkit::elf {

struct LoadedObject {
  std::string path;     // the file the object was loaded from
  uintptr_t bias = 0;   // its load bias: run-time address = bias + st_value
  uintptr_t begin = 0;  // lowest and highest address of its PT_LOAD segments
  uintptr_t end = 0;

  bool contains(uintptr_t address, size_t size) const noexcept {
    return address >= begin && address <= end && size <= end - address;
  }
};

// The loaded object whose segments hold `address` (e.g. a function dlsym found in it).
std::optional<LoadedObject> object_containing(const void* address);

// The run-time address of the object (data) symbol `name` in `object`'s .symtab, if it has one
// and the address lies in the object's segments. Reads the file; not async-signal-safe.
// Each address found is remembered for the process's life (an object's symbols do not move while
// it is loaded), so a second look-up of a name does not read the file.
std::optional<uintptr_t> find_data_symbol(const LoadedObject& object, const char* name, std::string* why);

// find_data_symbol for each of NAMES, in one read of the file (for the names not remembered yet);
// *WHY says why the last one not found was not.
std::vector<std::optional<uintptr_t>> find_data_symbols(const LoadedObject& object, std::span<const char* const> names,
                                                        std::string* why);

}  // namespace jvmkit::elf
