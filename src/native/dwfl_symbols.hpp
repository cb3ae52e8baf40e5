// The function symbols of one loaded object, read through elfutils' libdwfl: the object's own
// .symtab, else the .symtab of its separate debug file (debuginfo.hpp), else its .dynsym. That is
// libdwfl's own order of preference; this file adds the search for debug files without the
// network, the check that the file on disk is the image in memory, and which table each symbol
// came from. symbol_index.hpp turns the result into a lookup table.
//
// Not signal context: reads files, allocates. Each call has a Dwfl of its own, so calls on
// different threads do not share elfutils state.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/error.hpp"
#include "native/loaded_objects.hpp"

namespace jvmkit::native {

// Which table named a symbol.
enum class SymbolSource : uint8_t {
  kDebugFile = 0,  // a separate debug file's .symtab (found by build-id or .gnu_debuglink)
  kSymtab = 1,     // the object's own .symtab (or the .symtab libdwfl unpacks from .gnu_debugdata)
  kDynsym = 2,     // the object's .dynsym: exported functions only, static ones stay unnamed
};
inline constexpr int kSymbolSourceCount = 3;

// "debug file", "symtab", "dynsym".
const char* to_string(SymbolSource source) noexcept;

// One STT_FUNC or STT_GNU_IFUNC symbol with a nonzero size, defined in the object.
struct RawFunctionSymbol {
  uint64_t start = 0;     // library offset: its address in memory minus the load bias
  uint64_t size = 0;      // > 0
  std::string_view name;  // valid only during the visitor's call; never empty
  uint8_t binding = 0;    // STB_LOCAL, STB_GLOBAL, STB_WEAK, ...
  SymbolSource source = SymbolSource::kDynsym;
};

struct FunctionSymbolsRead {
  std::string debug_file;  // the separate debug file libdwfl used; empty when none
  size_t listed = 0;       // entries of the symbol table read, known before the first visit
};

// Calls VISIT with each function symbol of OBJECT, in table order. OBJECT.path names the file
// (the vDSO is read from its image in memory instead); when OBJECT.build_id is not empty, the
// file's build-id must equal it, so that a library replaced on disk since it was loaded (a package
// upgrade) is refused rather than misnamed. DEBUGINFO_PATH is the debug-file search path
// (debuginfo.hpp). On failure (unreadable, not ELF, another build) VISIT may not have been called
// and the error says why; a file with no function symbols at all is not a failure.
Error read_function_symbols(const LoadedObject& object, const std::string& debuginfo_path,
                            const std::function<void(const RawFunctionSymbol&)>& visit, FunctionSymbolsRead* read);

}  // namespace jvmkit::native
