// The unwind-table compiler's fast path: the CFA program of one .eh_frame FDE, run once from its
// start to its end.
//
// libdw answers one question, "which rules hold at this address" (dwarf_cfi_addrframe). A table
// built from it asks once per row, and each answer finds the FDE again in libdw's caches (tsearch
// trees) and replays the program from the FDE's start: about 450 ns a row, 90-100 ms for one
// libjvm.so, which is most of what native frames cost a short run. libdw has no call that walks
// an FDE's rows in order, so this file does, for the programs compilers emit: a CFA that is a
// register plus an offset, and rbp and the return address saved at CFA + N, kept or undefined.
//
// Everything else goes back to libdw, FDE by FDE: CFA expressions, rbp or the return address in a
// register or an expression, signal frames, DW_CFA_set_loc, augmentations other than GCC's,
// programs that run past their FDE. libdw still finds and splits the entries (dwarf_next_cfi);
// only the instructions are read here, and a row's rules are classified by the same code as
// libdw's (cfi_expr.hpp). Tests compare both paths row by row on whole libraries.
//
// Not signal context (allocates). One instance per object, on the thread that prepares tables.
#pragma once

#include <libelf.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "native/cfi_expr.hpp"

namespace jvmkit::native {

// One row as the FDE's program gives it: where it starts and its rule (start left 0 in the row).
struct ProgramRow {
  uint64_t start;
  ClassifiedRow classified;
};

// A rule for rbp or the return address, in the shapes the fast path keeps.
struct SavedRule {
  enum class Kind : uint8_t { kSame, kUndefined, kAtCfa };
  Kind kind = Kind::kSame;
  int64_t offset = 0;  // kAtCfa: the slot's offset from the CFA
};

// The rules one row depends on.
struct ProgramState {
  bool cfa_defined = false;  // a register + offset CFA (DW_CFA_def_cfa and its variants)
  uint64_t cfa_register = 0;
  int64_t cfa_offset = 0;
  SavedRule rbp;
  SavedRule return_address;
};

// Whether A and B have the same rules (and so the same row).
bool same_rules(const ProgramState& a, const ProgramState& b);

// The classification of recent states: a library's rows repeat a few dozen states (push rbp,
// mov rsp to rbp, the pushes of a prologue), and classifying one through libdw's operation
// arrays costs more than the rest of the row. Direct-mapped; a collision classifies again.
class RuleMemo {
 public:
  ClassifiedRow classify(const ProgramState& state);

 private:
  static constexpr size_t kEntries = 256;
  struct Entry {
    bool filled = false;
    ProgramState state;
    ClassifiedRow classified;
  };
  Entry entries_[kEntries];
};

class EhFramePrograms {
 public:
  // ELF's .eh_frame, which its .eh_frame_hdr places at EH_FRAME_VADDR. When the section is not
  // there (or elsewhere), usable() is false and every FDE goes to libdw.
  EhFramePrograms(Elf* elf, uint64_t eh_frame_vaddr);

  bool usable() const noexcept { return data_ != nullptr; }

  // Appends to OUT the rows of the FDE at FDE_VADDR, whose .eh_frame_hdr entry says it starts at
  // START, and sets *END to where it ends. False, with OUT as it was, when the program needs libdw,
  // when the FDE covers nothing, or when it runs past LIMIT (the next FDE's start).
  bool rows(uint64_t fde_vaddr, uint64_t start, uint64_t limit, std::vector<ProgramRow>* out, uint64_t* end);

 private:
  struct Cie {
    bool usable = false;
    uint8_t fde_encoding = 0;       // DW_EH_PE_*: how the FDE's initial location and range are written
    bool fde_augmentation = false;  // 'z': the FDE has an augmentation-data length
    uint64_t code_alignment = 1;
    int64_t data_alignment = 1;
    ProgramState initial;
  };

  const Cie& cie_at(uint64_t offset);
  Cie parse_cie(uint64_t offset) const;

  const unsigned char* ident_ = nullptr;
  Elf_Data* data_ = nullptr;
  uint64_t vaddr_ = 0;  // .eh_frame's ELF vaddr
  std::unordered_map<uint64_t, Cie> cies_;
  RuleMemo memo_;
};

}  // namespace jvmkit::native
