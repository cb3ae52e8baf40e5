// What the symbol tests compare the index with, read by other routes than libdwfl: libelf for
// symbol tables, libdw for the CFI that shows where code is; and the objects they look at.
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "native/elfutils_handles.hpp"
#include "native/loaded_objects.hpp"
#include "native/symbol_index.hpp"

namespace jvmkit::native::testing {

inline constexpr const char* kLibjvm17 = "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so";

// The names of the defined functions in PATH's .dynsym.
std::set<std::string> dynsym_function_names(const std::string& path);

// The value (ELF vaddr) of the vDSO's .dynsym symbol NAME, read from its image in memory.
std::optional<uint64_t> vdso_symbol_value(const char* name);

// The loaded object whose path has the base name BASE, if the process has one.
std::optional<LoadedObject> loaded_object_named(const std::string& base);

// OBJECT, or the file at PATH as an object not loaded (bias 0, no build-id to compare).
LoadedObject loaded_or_file(const std::string& path);

// The debug file of OBJECT in /usr/lib/debug's build-id tree, or "" when it is not installed.
std::string installed_debug_file(const LoadedObject& object);

// The first symbol of INDEX named NAME (as in the table), or nullptr.
const FunctionSymbol* symbol_named(const SymbolIndex& index, const std::string& name);

// Builds INDEX for OBJECT and prints the figures: symbols, bytes, milliseconds.
std::unique_ptr<SymbolIndex> build_and_report(const LoadedObject& object, const SymbolIndexOptions& options);

// The DWARF CFI (.eh_frame) of an ELF file, as libdw reads it: where code has unwind rows.
class FileCfi {
 public:
  explicit FileCfi(const std::string& path);
  ~FileCfi();
  FileCfi(const FileCfi&) = delete;
  FileCfi& operator=(const FileCfi&) = delete;

  bool valid() const { return cfi_ != nullptr; }
  // The start of the CFI row holding ELF address OFFSET, or nothing when no FDE covers it.
  std::optional<uint64_t> row_start(uint64_t offset) const;

 private:
  FileDescriptor fd_;
  ElfHandle elf_;
  Dwarf_CFI* cfi_ = nullptr;
};

}  // namespace jvmkit::native::testing
