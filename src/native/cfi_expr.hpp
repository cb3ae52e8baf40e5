// The step from libdw's description of one CFI row (a Dwarf_Frame) to an UnwindRow rule: which
// shapes of DWARF operations the signal-side table holds, and why a row is unsupported otherwise.
// Used by the unwind-table compiler only (cfi_rows.cpp); not signal context.
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>

#include "native/unwind_table.hpp"

namespace jvmkit::native {

// Why a CFI row could not become an UnwindRow. Kept in an unsupported row's operand.
enum class UnsupportedReason : uint8_t {
  kCfaExpression = 0,  // the CFA is a DWARF expression of another shape
  kCfaRegister,        // the CFA is based on a register that is not a general-purpose one
  kCfaOffsetRange,     // the CFA's offset does not fit in 16 bits
  kCfaUndefined,       // libdw gives no CFA (never defined, or invalid)
  kReturnAddressRule,  // the return address is neither at CFA - 8 nor undefined
  kSignalFrameShape,   // a signal frame whose rules do not say "the ucontext lies at rsp"
  kOperandConflict,    // the CFA's register (or PLT threshold) and rbp's slot both need the operand
  kLibdwError,         // libdw failed on a PC inside an FDE
  kCount
};
inline constexpr int kUnsupportedReasonCount = static_cast<int>(UnsupportedReason::kCount);

// A short name for reports ("cfa_expression").
const char* to_string(UnsupportedReason reason) noexcept;

// The rule of one row (its start is left 0). A kUnsupported row keeps its reason in operand.
struct ClassifiedRow {
  UnwindRow row;
  bool unsupported = false;
  UnsupportedReason reason = UnsupportedReason::kCount;
};

// One row's rules as DWARF operations, in the shapes dwarf_frame_cfa and dwarf_frame_register give
// them (see cfi_expr.cpp): the CFA, the return address and rbp. A rule with no operations is
// "same value" when its pointer is null and "undefined" otherwise.
struct FrameRules {
  const Dwarf_Op* cfa = nullptr;
  size_t cfa_n = 0;
  bool cfa_defined = false;
  const Dwarf_Op* ra = nullptr;
  size_t ra_n = 0;
  const Dwarf_Op* fp = nullptr;
  size_t fp_n = 0;
  bool signal_frame = false;  // the CIE's 'S' augmentation
};

// The rule of RULES.
ClassifiedRow classify_rules(const FrameRules& rules);

// The rule of FRAME (a row from dwarf_cfi_addrframe); SIGNAL_FRAME is dwarf_frame_info's flag.
ClassifiedRow classify_frame(Dwarf_Frame* frame, bool signal_frame);

// The unsupported row of REASON.
UnwindRow unsupported_row(UnsupportedReason reason) noexcept;

}  // namespace jvmkit::native
