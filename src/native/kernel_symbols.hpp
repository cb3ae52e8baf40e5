// The kernel's function symbols from /proc/kallsyms, for naming the kernel frames of a trace when
// it is delivered (never in the signal handler).
//
// /proc/kallsyms is the kernel's own table (the core kernel and loaded modules); the kernel hides
// its addresses (all zero) from readers that kptr_restrict excludes, and then frames cannot be
// named: hidden() says so, for a report that must not show unnamed kernel frames silently.
// No symbol sizes are given: a PC belongs to the last text symbol at or below it, up to the next
// one (kallsyms lists every function, so the gap is never another function).
//
// Thread-safety: immutable once loaded. Not signal context.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jvmkit::native {

class KernelSymbols {
 public:
  // Reads PATH (normally /proc/kallsyms; a file in that format in tests). An unreadable file gives
  // an empty table with error() set.
  static KernelSymbols load(const std::string& path = "/proc/kallsyms");
  // Parses the text of a kallsyms file ("ffffffff81000000 T _stext", "... t name\t[module]").
  static KernelSymbols parse(std::string_view text);

  // The function holding PC and PC's offset in it, or nullptr when none does (an empty or hidden
  // table, or a PC below the first symbol or past the kernel's text).
  const char* find(uint64_t pc, uint64_t* offset) const;

  size_t size() const { return starts_.size(); }
  // True when the file listed symbols but every address was zero (kptr_restrict).
  bool hidden() const { return hidden_; }
  const std::string& error() const { return error_; }

 private:
  struct Entry {
    uint64_t start;
    uint32_t name;  // offset in names_
  };
  // One line of the file, as it is read; then, once all are, the table put in order.
  void add_line(std::string_view line);
  void finish();
  std::vector<Entry> starts_;  // sorted by start; the last one is an end marker (_etext or a module's end)
  std::string names_;          // NUL-terminated names
  bool hidden_ = false;
  std::string error_;
  size_t listed_ = 0;     // lines read that were symbols
  bool in_order_ = true;  // the starts so far came sorted
};

}  // namespace jvmkit::native
