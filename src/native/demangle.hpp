// C++ symbol names as people read them: demangled by libstdc++'s abi::__cxa_demangle (no new
// dependency), and shortened to the function's qualified name, without its parameter list, so
// that a profile merges a function's overloads as async-profiler does.
//
// Not signal context: these allocate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace jvmkit::native {

// The demangled form of an Itanium-ABI mangled name ("_ZN9JavaCalls11call_helperEP9JavaValue..."
// -> "JavaCalls::call_helper(JavaValue*, methodHandle const&, JavaCallArguments*, JavaThread*)"),
// clone suffixes included ("... [clone .cold]"). Nothing for a name that is not mangled ("deflate",
// or one the demangler refuses): callers show it as it is.
std::optional<std::string> demangle(const char* mangled);

// DEMANGLED without the parameter lists that follow function names at the top level, and
// without the qualifiers that follow them (" const", " &&"):
//   "JavaCalls::call_helper(JavaValue*, methodHandle const&, ...)" -> "JavaCalls::call_helper"
//   "{lambda(int)#1}::operator()(int) const"                      -> "{lambda(int)#1}::operator()"
//   "f(int)::Local::g(long)" (a local class's member)               -> "f::Local::g"
//   "void (*h<int>(int))(long)" (a function returning a pointer)    -> "void h<int>"
// Kept: template arguments, "(anonymous namespace)", operator names ("operator()", "operator<",
// "operator< <T>"), brackets such as "[abi:cxx11]" and clone suffixes ("f [clone .cold]"): the
// cold part of a function is another place in the code. A name whose brackets do not balance is
// returned as it is. Idempotent.
std::string strip_parameters(std::string_view demangled);

// Demangled and stripped names kept for as long as the cache lives, so that callers may hold the
// returned pointers that long (a symbol index owns one; its names live as long as the index).
// Thread-safe: a mutex serializes the lookups.
class DemangleCache {
 public:
  DemangleCache() = default;
  DemangleCache(const DemangleCache&) = delete;
  DemangleCache& operator=(const DemangleCache&) = delete;

  // demangle(MANGLED), or MANGLED itself when that gives nothing. KEY identifies the name (a
  // symbol's position in its index); MANGLED must outlive the cache.
  const char* demangled(uint32_t key, const char* mangled);
  // strip_parameters(demangled(KEY, MANGLED)), or MANGLED itself when that is the same text.
  const char* without_parameters(uint32_t key, const char* mangled);

  // The memory the cached names take, in bytes (approximate: their characters and entries).
  size_t bytes() const;

 private:
  struct Entry {
    std::optional<std::string> demangled;  // set once computed; empty string: same as mangled
    std::optional<std::string> stripped;   // idem, relative to the demangled name
  };
  Entry& entry_for(uint32_t key, const char* mangled);

  mutable std::mutex mutex_;
  std::unordered_map<uint32_t, Entry> entries_;  // node-based: strings never move once stored
  size_t bytes_ = 0;
};

}  // namespace jvmkit::native
