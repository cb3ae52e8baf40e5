// libdw hands rules over as DWARF operations (elfutils' dwarf_frame_cfa, dwarf_frame_register):
//   CFA "register + offset" (DW_CFA_def_cfa*):  one DW_OP_bregx {number = register, number2 = offset}
//   CFA expression (DW_CFA_def_cfa_expression): the expression's own operations
//   register at CFA + N (DW_CFA_offset*):      DW_OP_call_frame_cfa [, DW_OP_plus_uconst N] (N as
//                                              an unsigned 64-bit value: -8 is 2^64 - 8)
//   register undefined:                        no operations, *ops == the caller's ops_mem
//   register same value:                       no operations, *ops == nullptr
//   register at an expression (DW_CFA_expression): DW_OP_call_frame_cfa, then the expression (DWARF
//                                              pushes the CFA before evaluating it), a location
// Only the shapes below become rows; everything else is unsupported, counted by reason.
#include "native/cfi_expr.hpp"

#include <dwarf.h>

#include <limits>

namespace jvmkit::native {

namespace {

// A general-purpose register plus an offset: DW_OP_bregx, or DW_OP_breg0..31.
bool breg(const Dwarf_Op& op, int* reg, int64_t* offset) {
  if (op.atom == DW_OP_bregx) {
    *reg = op.number < 256 ? static_cast<int>(op.number) : 255;  // any register beyond the GPRs is unsupported
    *offset = static_cast<int64_t>(op.number2);
    return true;
  }
  if (op.atom >= DW_OP_breg0 && op.atom <= DW_OP_breg31) {
    *reg = op.atom - DW_OP_breg0;
    *offset = static_cast<int64_t>(op.number);
    return true;
  }
  return false;
}

bool breg_is(const Dwarf_Op& op, int reg, int64_t offset) {
  int r;
  int64_t o;
  return breg(op, &r, &o) && r == reg && o == offset;
}

// The location of a register saved by DW_CFA_expression whose expression is one "register +
// offset": libdw gives DW_OP_call_frame_cfa first (unused below the expression's own value).
bool breg_location(const Dwarf_Op* ops, size_t n, int reg, int64_t offset) {
  if (ops == nullptr) return false;
  if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa) return breg_is(ops[1], reg, offset);
  return n == 1 && breg_is(ops[0], reg, offset);
}

struct Cfa {
  CfaKind kind = CfaKind::kUnsupported;
  int64_t offset = 0;
  int operand = 0;
  UnsupportedReason reason = UnsupportedReason::kCfaExpression;
};

// binutils' PLT rule: CFA = rsp + off + ((rip & 15) >= threshold) << 3, threshold 11 (lazy PLT) or
// 10 (the PLT of -z bndplt / IBT layouts):
//   breg7 off; breg16 0; lit15; and; lit11|lit10; ge; lit3; shl; plus
bool plt(const Dwarf_Op* ops, size_t n, Cfa* out) {
  int reg;
  int64_t offset;
  if (n != 9 || !breg(ops[0], &reg, &offset) || reg != kDwarfRsp) return false;
  if (!breg_is(ops[1], kDwarfReturnAddress, 0) || ops[2].atom != DW_OP_lit15 || ops[3].atom != DW_OP_and) return false;
  if (ops[4].atom != DW_OP_lit11 && ops[4].atom != DW_OP_lit10) return false;
  if (ops[5].atom != DW_OP_ge || ops[6].atom != DW_OP_lit3 || ops[7].atom != DW_OP_shl || ops[8].atom != DW_OP_plus) {
    return false;
  }
  *out = Cfa{CfaKind::kPlt, offset, ops[4].atom - DW_OP_lit0};
  return true;
}

Cfa classify_cfa(const Dwarf_Op* ops, size_t n) {
  Cfa cfa;
  int reg;
  int64_t offset;
  if (n == 1 && breg(ops[0], &reg, &offset)) {
    cfa.offset = offset;
    if (reg == kDwarfRsp) {
      cfa.kind = CfaKind::kRsp;
    } else if (reg == kDwarfRbp) {
      cfa.kind = CfaKind::kRbp;
    } else if (reg < kDwarfGprCount) {
      cfa.kind = CfaKind::kRegister;
      cfa.operand = reg;
    } else {
      cfa.reason = UnsupportedReason::kCfaRegister;
    }
    return cfa;
  }
  // GCC's DRAP: the CFA was saved below the realigned frame's rbp.
  if (n == 2 && breg(ops[0], &reg, &offset) && reg == kDwarfRbp && ops[1].atom == DW_OP_deref) {
    return Cfa{CfaKind::kRbpDeref, offset};
  }
  plt(ops, n, &cfa);
  return cfa;
}

// DW_OP_call_frame_cfa [, DW_OP_plus_uconst N]: the register is saved at CFA + N.
bool at_cfa_plus(const Dwarf_Op* ops, size_t n, int64_t* offset) {
  if (ops == nullptr || n < 1 || n > 2 || ops[0].atom != DW_OP_call_frame_cfa) return false;
  if (n == 1) {
    *offset = 0;
    return true;
  }
  if (ops[1].atom != DW_OP_plus_uconst) return false;
  *offset = static_cast<int64_t>(ops[1].number);
  return true;
}

struct Rbp {
  RbpRule rule = RbpRule::kUnknown;
  int slot = 0;
};

Rbp classify_rbp(const Dwarf_Op* ops, size_t n) {
  if (n == 0) return Rbp{ops == nullptr ? RbpRule::kSame : RbpRule::kUnknown};
  int64_t offset;
  if (at_cfa_plus(ops, n, &offset)) {
    const int64_t slot = offset / 8;
    if (offset % 8 != 0 || slot < std::numeric_limits<int8_t>::min() || slot > std::numeric_limits<int8_t>::max()) {
      return Rbp{};
    }
    return Rbp{RbpRule::kSaved, static_cast<int>(slot)};
  }
  if (breg_location(ops, n, kDwarfRbp, 0)) return Rbp{RbpRule::kAtRbp};  // DRAP's DW_CFA_expression
  return Rbp{};
}

ClassifiedRow unsupported(UnsupportedReason reason) { return ClassifiedRow{unsupported_row(reason), true, reason}; }

// A signal frame holds as a row only in the shape of glibc's __restore_rt: the CFA is the
// interrupted rsp and the return address and rbp are read from the ucontext_t at rsp.
ClassifiedRow classify_signal_frame(const Dwarf_Op* cfa, size_t cfa_n, const Dwarf_Op* ra, size_t ra_n,
                                    const Dwarf_Op* fp, size_t fp_n) {
  const auto at = [](int greg) { return static_cast<int64_t>(ucontext_greg_offset(greg)); };
  const bool cfa_ok = cfa_n == 2 && breg_is(cfa[0], kDwarfRsp, at(REG_RSP)) && cfa[1].atom == DW_OP_deref;
  const bool ra_ok = breg_location(ra, ra_n, kDwarfRsp, at(REG_RIP));
  const bool fp_ok = breg_location(fp, fp_n, kDwarfRsp, at(REG_RBP));
  if (!cfa_ok || !ra_ok || !fp_ok) return unsupported(UnsupportedReason::kSignalFrameShape);
  return ClassifiedRow{make_row(0, CfaKind::kSignalFrame, 0, RbpRule::kSame, 0)};
}

bool uses_operand(CfaKind kind) { return kind == CfaKind::kRegister || kind == CfaKind::kPlt; }

}  // namespace

const char* to_string(UnsupportedReason reason) noexcept {
  switch (reason) {
    case UnsupportedReason::kCfaExpression:
      return "cfa_expression";
    case UnsupportedReason::kCfaRegister:
      return "cfa_register";
    case UnsupportedReason::kCfaOffsetRange:
      return "cfa_offset_range";
    case UnsupportedReason::kCfaUndefined:
      return "cfa_undefined";
    case UnsupportedReason::kReturnAddressRule:
      return "return_address_rule";
    case UnsupportedReason::kSignalFrameShape:
      return "signal_frame_shape";
    case UnsupportedReason::kOperandConflict:
      return "operand_conflict";
    case UnsupportedReason::kLibdwError:
      return "libdw_error";
    case UnsupportedReason::kCount:
      break;
  }
  return "?";
}

UnwindRow unsupported_row(UnsupportedReason reason) noexcept {
  return make_row(0, CfaKind::kUnsupported, 0, RbpRule::kUnknown, static_cast<int8_t>(reason));
}

ClassifiedRow classify_frame(Dwarf_Frame* frame, bool signal_frame) {
  FrameRules rules;
  Dwarf_Op ra_mem[3], fp_mem[3];
  Dwarf_Op* ra_ops = nullptr;
  Dwarf_Op* fp_ops = nullptr;
  if (dwarf_frame_register(frame, kDwarfReturnAddress, ra_mem, &ra_ops, &rules.ra_n) != 0 ||
      dwarf_frame_register(frame, kDwarfRbp, fp_mem, &fp_ops, &rules.fp_n) != 0) {
    return unsupported(UnsupportedReason::kLibdwError);
  }
  Dwarf_Op* cfa_ops = nullptr;
  rules.cfa_defined = dwarf_frame_cfa(frame, &cfa_ops, &rules.cfa_n) == 0 && rules.cfa_n > 0;
  rules.cfa = cfa_ops;
  rules.ra = ra_ops;
  rules.fp = fp_ops;
  rules.signal_frame = signal_frame;
  return classify_rules(rules);
}

ClassifiedRow classify_rules(const FrameRules& rules) {
  const Dwarf_Op* cfa_ops = rules.cfa;
  const size_t cfa_n = rules.cfa_n;
  const Dwarf_Op* ra_ops = rules.ra;
  const Dwarf_Op* fp_ops = rules.fp;
  const size_t ra_n = rules.ra_n, fp_n = rules.fp_n;
  if (rules.signal_frame) {
    if (!rules.cfa_defined) return unsupported(UnsupportedReason::kSignalFrameShape);
    return classify_signal_frame(cfa_ops, cfa_n, ra_ops, ra_n, fp_ops, fp_n);
  }
  // Undefined return address: nothing is below this frame, whatever its CFA.
  if (ra_n == 0 && ra_ops != nullptr) return ClassifiedRow{make_row(0, CfaKind::kOutermost, 0, RbpRule::kUnknown, 0)};
  int64_t ra_offset;
  if (!at_cfa_plus(ra_ops, ra_n, &ra_offset) || ra_offset != -8) {
    return unsupported(UnsupportedReason::kReturnAddressRule);
  }
  if (!rules.cfa_defined) return unsupported(UnsupportedReason::kCfaUndefined);
  const Cfa cfa = classify_cfa(cfa_ops, cfa_n);
  if (cfa.kind == CfaKind::kUnsupported) return unsupported(cfa.reason);
  if (cfa.offset < std::numeric_limits<int16_t>::min() || cfa.offset > std::numeric_limits<int16_t>::max()) {
    return unsupported(UnsupportedReason::kCfaOffsetRange);
  }
  const Rbp rbp = classify_rbp(fp_ops, fp_n);
  if (rbp.rule == RbpRule::kSaved && uses_operand(cfa.kind)) return unsupported(UnsupportedReason::kOperandConflict);
  const int operand = uses_operand(cfa.kind) ? cfa.operand : rbp.slot;
  return ClassifiedRow{make_row(0, cfa.kind, static_cast<int16_t>(cfa.offset), rbp.rule, static_cast<int8_t>(operand))};
}

}  // namespace jvmkit::native
