// The function symbols of one loaded object as an immutable table sorted by library offset, for
// naming native frames when a trace is delivered (never in the signal handler).
//
// Built off the signal path (the library watcher, or a test) from libdwfl's reading of the object
// (dwfl_symbols.hpp): the object's .symtab, a separate debug file's, or its .dynsym. A lookup names
// an offset only when it lies inside a symbol (start <= offset < start + size): a static function
// absent from .dynsym is unnamed rather than named after the exported function before it. Callers
// then show "libz.so.1+0x4a10" (fallback_name).
//
// Thread-safety: an index is immutable once built, and may be read from any thread; the demangled
// names it caches are guarded by a mutex. Not signal context.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "native/demangle.hpp"
#include "native/dwfl_symbols.hpp"
#include "native/loaded_objects.hpp"

namespace jvmkit::native {

// One function: 16 bytes.
struct FunctionSymbol {
  uint64_t start = 0;       // library offset (address in memory - load bias)
  uint32_t size = 0;        // bytes, > 0
  uint32_t name : 30 = 0;   // offset of its NUL-terminated name in the index's name arena
  uint32_t source : 2 = 0;  // a SymbolSource

  bool covers(uint64_t offset) const { return offset >= start && offset - start < size; }
  SymbolSource symbol_source() const { return static_cast<SymbolSource>(source); }
};
static_assert(sizeof(FunctionSymbol) == 16);

struct SymbolIndexOptions {
  // Where separate debug files are searched, in debuginfo.hpp's notation; empty: the environment's
  // ($JVMKIT_DEBUGINFO_PATH, else ":.debug:/usr/lib/debug").
  std::string debuginfo_path;
};

class SymbolIndex {
 public:
  // Reads OBJECT's function symbols (dwfl_symbols.hpp: the file must be the loaded image when
  // OBJECT carries a build-id). Names lose a symbol version suffix ("@@GLIBC_2.34"). Of the
  // symbols that start at the same offset (aliases such as malloc and __libc_malloc) one is kept:
  // global before weak before local, a default or no version before an old one ("cfree@GLIBC_2.2.5"),
  // then the larger, then the name with fewer leading underscores, then the first in byte order.
  // nullptr with the reason in *WHY when the object cannot be read; an object without function
  // symbols gives an empty index. Reads files and allocates.
  static std::unique_ptr<SymbolIndex> build(const LoadedObject& object, const SymbolIndexOptions& options,
                                            std::string* why);

  SymbolIndex(const SymbolIndex&) = delete;
  SymbolIndex& operator=(const SymbolIndex&) = delete;

  // The symbol holding library offset OFFSET (pc - bias; for a return address, pc - 1 - bias), or
  // nullptr when no symbol's [start, start + size) holds it. Only the last symbol starting at or
  // before OFFSET is tried: an offset past a symbol nested inside a larger one stays unnamed (no
  // function symbol of libc, libz or libjvm 17 is nested in another).
  const FunctionSymbol* find(uint64_t offset) const;

  // SYMBOL's name as its table has it ("_ZN9JavaCalls11call_helperE...", "deflate").
  const char* name(const FunctionSymbol& symbol) const { return names_.data() + symbol.name; }
  // Demangled ("JavaCalls::call_helper(JavaValue*, ...)"), or name() when not a C++ name.
  const char* demangled(const FunctionSymbol& symbol) const;
  // demangled() without its parameter list ("JavaCalls::call_helper"; demangle.hpp).
  const char* function_name(const FunctionSymbol& symbol) const;
  // The pointers these return stay valid as long as the index.

  std::span<const FunctionSymbol> symbols() const { return symbols_; }
  const std::string& path() const { return path_; }
  // The separate debug file the symbols came from; empty when none was used.
  const std::string& debug_file() const { return debug_file_; }
  size_t count(SymbolSource source) const { return counts_[static_cast<size_t>(source)]; }
  // The table and its names, in bytes written (not the arena's reserved, untouched tail, nor the
  // demangled names cached since).
  size_t bytes() const { return symbols_.capacity() * sizeof(FunctionSymbol) + names_.size(); }
  // The demangled and stripped names cached so far, in bytes.
  size_t demangled_bytes() const { return demangled_.bytes(); }
  // Symbols read, before aliases at one offset were merged.
  size_t symbols_read() const { return symbols_read_; }

 private:
  SymbolIndex() = default;
  uint32_t key_of(const FunctionSymbol& symbol) const { return static_cast<uint32_t>(&symbol - symbols_.data()); }

  std::string path_;
  std::string debug_file_;
  std::vector<FunctionSymbol> symbols_;  // sorted by start, one per start
  std::vector<char> names_;              // the names, each NUL-terminated
  size_t counts_[kSymbolSourceCount] = {};
  size_t symbols_read_ = 0;
  mutable DemangleCache demangled_;
};

// "<base name of PATH>+0x<hex>" ("libz.so.1+0x4a10") for a PC no symbol names: the offset is
// FUNCTION_START when the caller knows where the enclosing function starts (its CFI FDE), so that
// samples in one function share one name; else PC_OFFSET.
std::string fallback_name(std::string_view path, uint64_t pc_offset, std::optional<uint64_t> function_start);

}  // namespace jvmkit::native
