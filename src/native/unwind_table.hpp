// SIGNAL CONTEXT. The unwind tables as the signal side reads them: compact rows compiled off the
// signal path from an object's DWARF CFI (cfi_rows.hpp), the modules that own them, the look-up
// of a PC and the evaluation of one row on a frame's registers.
//
// Everything here may run in a signal handler: plain loops over immutable arrays, no allocation,
// no lock, no library call. Memory is read only through the caller's WordReader, which decides
// what may be read (the thread's stack bounds); a row never makes this code touch memory itself.
#pragma once

#include <ucontext.h>

#include <cstddef>
#include <cstdint>

#include "base/signal_safe.hpp"

namespace jvmkit::native {

// How a row finds the CFA (the caller's SP; its return address lies at CFA - 8).
enum class CfaKind : uint8_t {
  kNoInfo = 0,       // no CFI covers the PC: a gap between FDEs
  kRsp = 1,          // CFA = rsp + cfa_offset
  kRbp = 2,          // CFA = rbp + cfa_offset
  kRbpDeref = 3,     // CFA = *(rbp + cfa_offset): GCC's DRAP stack realignment
  kRegister = 4,     // CFA = GPR(operand, a DWARF number) + cfa_offset: known in the interrupted frame only
  kPlt = 5,          // CFA = rsp + cfa_offset, + 8 when (pc & 15) >= operand: binutils' PLT expression
  kSignalFrame = 6,  // a signal trampoline: the interrupted context (a ucontext_t) lies at rsp
  kOutermost = 7,    // the return address is undefined: the thread's first frame (clone3, _start)
  kUnsupported = 8,  // a rule this table does not hold
};

// Where the caller's rbp is.
enum class RbpRule : uint8_t {
  kSame = 0,     // this frame did not change rbp
  kSaved = 1,    // saved at CFA + 8 * operand
  kUnknown = 2,  // not recoverable from this table (a frame that needs it stops)
  kAtRbp = 3,    // saved at [rbp]: the frame-pointer chain of a frame whose CFA is not rbp-based (DRAP)
};

struct UnwindRow {
  uint32_t start;      // PC offset from the module's load bias (= ELF vaddr) where this rule begins
  int16_t cfa_offset;  // bytes; rules whose offset does not fit are kUnsupported
  uint8_t rule;        // bits 0-3 CfaKind, bits 4-5 RbpRule
  // kSaved: rbp's slot / 8; kRegister: the CFA's DWARF register; kPlt: the threshold;
  // kUnsupported: why (cfi_expr.hpp's UnsupportedReason).
  int8_t operand;

  JVMKIT_SIGNAL_SAFE constexpr CfaKind cfa_kind() const noexcept { return static_cast<CfaKind>(rule & 0x0f); }
  JVMKIT_SIGNAL_SAFE constexpr RbpRule rbp_rule() const noexcept { return static_cast<RbpRule>((rule >> 4) & 3); }
  // True when the two rows hold the same rule (their starts may differ).
  JVMKIT_SIGNAL_SAFE constexpr bool same_rule(const UnwindRow& other) const noexcept {
    return cfa_offset == other.cfa_offset && rule == other.rule && operand == other.operand;
  }
};
static_assert(sizeof(UnwindRow) == 8, "the table's memory is 8 bytes per row");

JVMKIT_SIGNAL_SAFE constexpr UnwindRow make_row(uint32_t start, CfaKind cfa, int16_t cfa_offset, RbpRule rbp,
                                                int8_t operand) noexcept {
  return UnwindRow{start, cfa_offset,
                   static_cast<uint8_t>(static_cast<uint8_t>(cfa) | (static_cast<uint8_t>(rbp) << 4)), operand};
}

// The last row starting at or below OFFSET (nullptr if none), searched in ROWS[LO, HI): the
// caller knows that the rows before LO start at or below OFFSET and the rows from HI on above it.
JVMKIT_SIGNAL_SAFE inline const UnwindRow* find_row_between(const UnwindRow* rows, uint32_t lo, uint32_t hi,
                                                            uint32_t offset) noexcept {
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (rows[mid].start <= offset) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo == 0 ? nullptr : &rows[lo - 1];
}

// The last of ROWS (N of them, sorted by start) with start <= OFFSET, or nullptr if none.
JVMKIT_SIGNAL_SAFE inline const UnwindRow* find_row(const UnwindRow* rows, uint32_t n, uint32_t offset) noexcept {
  return find_row_between(rows, 0, n, offset);
}

// DWARF's x86-64 register numbers of the general-purpose registers (the System V psABI).
inline constexpr int kDwarfRbp = 6;
inline constexpr int kDwarfRsp = 7;
inline constexpr int kDwarfGprCount = 16;  // rax rdx rcx rbx rsi rdi rbp rsp r8 ... r15
inline constexpr int kDwarfReturnAddress = 16;

// The registers one row is evaluated on.
struct FrameRegs {
  uintptr_t pc = 0;
  uintptr_t sp = 0;
  uintptr_t fp = 0;      // rbp
  bool fp_known = true;  // false in a caller whose rbp rule was kUnknown
  // The 16 GPRs by DWARF number, or nullptr: only the frame a signal interrupted has them (its
  // ucontext), so a kRegister row is usable there only.
  const uint64_t* gprs = nullptr;
};

// The GPRs of a signal's context by DWARF number, for FrameRegs::gprs.
JVMKIT_SIGNAL_SAFE inline void dwarf_gprs_of(const ucontext_t* uc, uint64_t out[kDwarfGprCount]) noexcept {
  static constexpr int kGreg[kDwarfGprCount] = {REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP, REG_RSP,
                                                REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
  for (int i = 0; i < kDwarfGprCount; i++) out[i] = static_cast<uint64_t>(uc->uc_mcontext.gregs[kGreg[i]]);
}

// Where a register lies in the ucontext_t a signal trampoline's rsp points at.
JVMKIT_SIGNAL_SAFE constexpr uintptr_t ucontext_greg_offset(int greg) noexcept {
  return offsetof(ucontext_t, uc_mcontext) + offsetof(mcontext_t, gregs) +
         sizeof(greg_t) * static_cast<uintptr_t>(greg);
}

// Reads the word at ADDRESS into *VALUE; false when ADDRESS may not be read (e.g. outside the
// stack bounds). CONTEXT is the reader's own. Must itself be async-signal-safe.
using ReadWordFn = bool (*)(const void* context, uintptr_t address, uintptr_t* value) noexcept;
struct WordReader {
  ReadWordFn read;
  const void* context;
  // An indirect call: the function is the caller's, which guarantees it is signal-safe.
  JVMKIT_SIGNAL_SAFE bool operator()(uintptr_t address, uintptr_t* value) const noexcept {
    return read(context, address, value);
  }
};

enum class StepResult : uint8_t {
  kOk = 0,          // cfa, ra_slot (and caller_fp when caller_fp_known) are set
  kOutermost,       // the thread's first frame: nothing is below
  kNoInfo,          // a kNoInfo row
  kUnsupported,     // a kUnsupported row
  kNeedsRegisters,  // the rule needs a register this frame does not know (rbp unknown, no GPRs)
  kUnreadable,      // the reader refused a word the rule needs
};

struct CallerLocation {
  StepResult result = StepResult::kUnsupported;
  uintptr_t cfa = 0;
  uintptr_t ra_slot = 0;  // the caller's PC is the word here
  uintptr_t caller_fp = 0;
  bool caller_fp_known = false;
  // kSignalFrame: every register of the caller is in the ucontext_t at regs.sp (cfa, ra_slot and
  // caller_fp are read from it); the caller's PC is exact, not a return address.
  bool signal_frame = false;
};

namespace unwind_detail {

// The CFA of a row of kind kRsp, kPlt, kRbp, kRbpDeref or kRegister.
JVMKIT_SIGNAL_SAFE inline StepResult cfa_of(const UnwindRow& row, const FrameRegs& regs, WordReader memory,
                                            uintptr_t* cfa) noexcept {
  const auto offset = static_cast<uintptr_t>(static_cast<intptr_t>(row.cfa_offset));
  switch (row.cfa_kind()) {
    case CfaKind::kRsp:
      *cfa = regs.sp + offset;
      return StepResult::kOk;
    case CfaKind::kPlt:
      *cfa = regs.sp + offset + ((regs.pc & 15) >= static_cast<uintptr_t>(row.operand) ? 8 : 0);
      return StepResult::kOk;
    case CfaKind::kRbp:
      if (!regs.fp_known) return StepResult::kNeedsRegisters;
      *cfa = regs.fp + offset;
      return StepResult::kOk;
    case CfaKind::kRbpDeref:
      if (!regs.fp_known) return StepResult::kNeedsRegisters;
      return memory(regs.fp + offset, cfa) ? StepResult::kOk : StepResult::kUnreadable;
    case CfaKind::kRegister:
      if (regs.gprs == nullptr || row.operand < 0 || row.operand >= kDwarfGprCount) {
        return StepResult::kNeedsRegisters;
      }
      *cfa = static_cast<uintptr_t>(regs.gprs[row.operand]) + offset;
      return StepResult::kOk;
    default:
      return StepResult::kUnsupported;
  }
}

// The caller's rbp by the row's rbp rule, into OUT (whose cfa is set).
JVMKIT_SIGNAL_SAFE inline StepResult caller_fp_of(const UnwindRow& row, const FrameRegs& regs, WordReader memory,
                                                  CallerLocation* out) noexcept {
  switch (row.rbp_rule()) {
    case RbpRule::kSame:
      out->caller_fp = regs.fp;
      out->caller_fp_known = regs.fp_known;
      return StepResult::kOk;
    case RbpRule::kSaved: {
      const uintptr_t slot = out->cfa + static_cast<uintptr_t>(8 * static_cast<intptr_t>(row.operand));
      if (!memory(slot, &out->caller_fp)) return StepResult::kUnreadable;
      out->caller_fp_known = true;
      return StepResult::kOk;
    }
    case RbpRule::kAtRbp:
      if (!regs.fp_known) return StepResult::kOk;  // the caller's rbp stays unknown
      if (!memory(regs.fp, &out->caller_fp)) return StepResult::kUnreadable;
      out->caller_fp_known = true;
      return StepResult::kOk;
    case RbpRule::kUnknown:
      return StepResult::kOk;
  }
  return StepResult::kOk;
}

// A signal trampoline: the interrupted registers are those of the ucontext_t at rsp.
JVMKIT_SIGNAL_SAFE inline CallerLocation signal_frame(const FrameRegs& regs, WordReader memory) noexcept {
  CallerLocation out;
  out.signal_frame = true;
  out.ra_slot = regs.sp + ucontext_greg_offset(REG_RIP);
  if (!memory(regs.sp + ucontext_greg_offset(REG_RSP), &out.cfa) ||
      !memory(regs.sp + ucontext_greg_offset(REG_RBP), &out.caller_fp)) {
    out.result = StepResult::kUnreadable;
    return out;
  }
  out.caller_fp_known = true;
  out.result = StepResult::kOk;
  return out;
}

}  // namespace unwind_detail

// What ROW says about the caller of the frame with registers REGS (REGS.pc lies in the row's
// range): its CFA, where its PC lies and its rbp. Reads memory through MEMORY only: the saved
// rbp, the DRAP pointer, the ucontext of a signal frame. The return address itself is not read.
JVMKIT_SIGNAL_SAFE inline CallerLocation evaluate(const UnwindRow& row, const FrameRegs& regs,
                                                  WordReader memory) noexcept {
  CallerLocation out;
  switch (row.cfa_kind()) {
    case CfaKind::kNoInfo:
      out.result = StepResult::kNoInfo;
      return out;
    case CfaKind::kOutermost:
      out.result = StepResult::kOutermost;
      return out;
    case CfaKind::kSignalFrame:
      return unwind_detail::signal_frame(regs, memory);
    case CfaKind::kUnsupported:
      out.result = StepResult::kUnsupported;
      return out;
    default:
      break;
  }
  out.result = unwind_detail::cfa_of(row, regs, memory, &out.cfa);
  if (out.result != StepResult::kOk) return out;
  out.ra_slot = out.cfa - 8;
  out.result = unwind_detail::caller_fp_of(row, regs, memory, &out);
  return out;
}

// One executable segment of a loaded object and the rows of its object (shared by its segments).
struct UnwindModule {
  uintptr_t text_start = 0;  // absolute [text_start, text_end)
  uintptr_t text_end = 0;
  uintptr_t bias = 0;               // absolute address = ELF vaddr + bias
  const UnwindRow* rows = nullptr;  // sorted by start; nullptr when not prepared
  uint32_t row_count = 0;
  uint32_t object = 0;        // index of the object in its snapshot (names, statistics)
  bool prepared = false;      // false: the object's table could not be built (file replaced, no CFI, ...)
  bool stays_mapped = false;  // never unloaded: its code bytes may be read without a check
  // Where each FDE of the object starts (offsets from the bias, sorted; nullptr when not
  // prepared). The rows alone do not say it: adjacent FDEs with the same rule share one row.
  const uint32_t* function_starts = nullptr;
  uint32_t function_start_count = 0;
  // The rows by page of code (RowPages): nullptr when the object has none.
  const uint32_t* row_pages = nullptr;
  uint32_t first_row_page = 0;
  uint32_t row_page_count = 0;
};

// The row a search of MODULE's rows starts from, by page of 4 KiB of code: ROW_PAGES[p] is how many
// rows start below page FIRST_ROW_PAGE + p (ROW_PAGE_COUNT + 1 entries). A search then reads the
// few rows of one page instead of halving the whole table: libjvm's 230,000 rows are 1.8 MB, and
// a search of them in a signal handler was a dozen cache misses per frame.
inline constexpr int kRowPageShift = 12;

// The row of MODULE (prepared) holding OFFSET, as find_row finds it.
JVMKIT_SIGNAL_SAFE inline const UnwindRow* find_module_row(const UnwindModule& module, uint32_t offset) noexcept {
  const uint32_t page = offset >> kRowPageShift;
  if (module.row_pages == nullptr || page < module.first_row_page ||
      page - module.first_row_page >= module.row_page_count) {
    return find_row(module.rows, module.row_count, offset);
  }
  const uint32_t* bounds = module.row_pages + (page - module.first_row_page);
  // Rows below bounds[0] start below the page, so at or below OFFSET; rows from bounds[1] on
  // start at the next page or later, above OFFSET.
  return find_row_between(module.rows, bounds[0], bounds[1], offset);
}

// How many of STARTS (N of them, sorted) are at or below OFFSET.
JVMKIT_SIGNAL_SAFE inline uint32_t starts_at_or_below(const uint32_t* starts, uint32_t n, uint32_t offset) noexcept {
  uint32_t lo = 0, hi = n;  // invariant: starts[0, lo) <= offset, starts[hi, n) > offset
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (starts[mid] <= offset) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// The start of the FDE whose call-frame information covers OFFSET (an offset from MODULE's bias;
// for a return address, of the call), or -1 when no FDE covers it: a PC in a gap between FDEs
// (hand-written assembly without CFI) belongs to no FDE, not to the one before the gap.
JVMKIT_SIGNAL_SAFE inline int64_t covering_function_start(const UnwindModule& module, uint32_t offset) noexcept {
  if (!module.prepared) return -1;
  const UnwindRow* row = find_module_row(module, offset);
  if (row == nullptr || row->cfa_kind() == CfaKind::kNoInfo) return -1;
  const uint32_t below = starts_at_or_below(module.function_starts, module.function_start_count, offset);
  return below == 0 ? -1 : static_cast<int64_t>(module.function_starts[below - 1]);
}

// True when an FDE of MODULE starts in (AFTER, UP_TO]: the two offsets lie in different functions
// as far as the call-frame information knows them.
JVMKIT_SIGNAL_SAFE inline bool function_start_between(const UnwindModule& module, uint32_t after,
                                                      uint32_t up_to) noexcept {
  const uint32_t n = module.function_start_count;
  return starts_at_or_below(module.function_starts, n, up_to) > starts_at_or_below(module.function_starts, n, after);
}

// The module of MODULES (N of them, sorted by text_start, not overlapping) whose segment holds
// PC, or nullptr.
JVMKIT_SIGNAL_SAFE inline const UnwindModule* find_module(const UnwindModule* modules, uint32_t n,
                                                          uintptr_t pc) noexcept {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (modules[mid].text_start <= pc) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == 0 || pc >= modules[lo - 1].text_end) return nullptr;
  return &modules[lo - 1];
}

enum class LookupStatus : uint8_t {
  kFound = 0,    // a row that unwinds (also kOutermost and kSignalFrame rows)
  kNoModule,     // no module holds the PC (not loaded when the table was built, or not an object's code)
  kUnprepared,   // the module's table could not be built
  kNoInfo,       // no CFI row covers the PC
  kUnsupported,  // the PC's row holds a rule this table does not
};

struct RowLookup {
  LookupStatus status = LookupStatus::kNoModule;
  const UnwindModule* module = nullptr;
  const UnwindRow* row = nullptr;  // with kFound, kUnsupported and a kNoInfo row
};

// The row that holds PC (use pc - 1 for a return address: the call, not what follows it).
JVMKIT_SIGNAL_SAFE inline RowLookup lookup_row(const UnwindModule* modules, uint32_t n, uintptr_t pc) noexcept {
  RowLookup out;
  out.module = find_module(modules, n, pc);
  if (out.module == nullptr) return out;
  if (!out.module->prepared) {
    out.status = LookupStatus::kUnprepared;
    return out;
  }
  // Preparation refused objects whose segments lie 4 GiB or more above their bias.
  out.row = find_module_row(*out.module, static_cast<uint32_t>(pc - out.module->bias));
  if (out.row == nullptr || out.row->cfa_kind() == CfaKind::kNoInfo) {
    out.status = LookupStatus::kNoInfo;
  } else if (out.row->cfa_kind() == CfaKind::kUnsupported) {
    out.status = LookupStatus::kUnsupported;
  } else {
    out.status = LookupStatus::kFound;
  }
  return out;
}

}  // namespace jvmkit::native
