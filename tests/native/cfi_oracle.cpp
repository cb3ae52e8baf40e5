#include "cfi_oracle.hpp"

#include <dwarf.h>

#include <cstdlib>
#include <vector>

namespace jvmkit::native::oracle {

namespace {

struct Result {
  bool ok = false;
  uint64_t value = 0;
  bool location = true;  // false: DW_OP_stack_value or a register: the value itself
  std::string why;
};

bool binary(uint8_t atom, uint64_t a, uint64_t b, uint64_t* out) {
  const auto sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
  switch (atom) {
    case DW_OP_plus:
      *out = a + b;
      return true;
    case DW_OP_minus:
      *out = a - b;
      return true;
    case DW_OP_mul:
      *out = a * b;
      return true;
    case DW_OP_and:
      *out = a & b;
      return true;
    case DW_OP_or:
      *out = a | b;
      return true;
    case DW_OP_xor:
      *out = a ^ b;
      return true;
    case DW_OP_shl:
      *out = b >= 64 ? 0 : a << b;
      return true;
    case DW_OP_shr:
      *out = b >= 64 ? 0 : a >> b;
      return true;
    case DW_OP_shra:
      *out = static_cast<uint64_t>(b >= 64 ? (sa < 0 ? -1 : 0) : sa >> b);
      return true;
    // DWARF's comparisons are signed.
    case DW_OP_ge:
      *out = sa >= sb;
      return true;
    case DW_OP_gt:
      *out = sa > sb;
      return true;
    case DW_OP_le:
      *out = sa <= sb;
      return true;
    case DW_OP_lt:
      *out = sa < sb;
      return true;
    case DW_OP_eq:
      *out = sa == sb;
      return true;
    case DW_OP_ne:
      *out = sa != sb;
      return true;
    default:
      return false;
  }
}

bool register_value(const SyntheticRegs& regs, uint64_t reg, uint64_t* out) {
  if (reg > 16) return false;
  *out = regs.reg[reg];
  return true;
}

// Evaluates N operations of OPS; CFA is DW_OP_call_frame_cfa's value (when CFA_KNOWN).
Result evaluate(const Dwarf_Op* ops, size_t n, const SyntheticRegs& regs, bool cfa_known, uint64_t cfa) {
  Result r;
  std::vector<uint64_t> stack;
  const auto fail = [&](const std::string& why) {
    r.ok = false;
    r.why = why;
    return r;
  };
  for (size_t i = 0; i < n; i++) {
    const Dwarf_Op& op = ops[i];
    uint64_t v;
    if (op.atom >= DW_OP_lit0 && op.atom <= DW_OP_lit31) {
      stack.push_back(op.atom - DW_OP_lit0);
    } else if (op.atom >= DW_OP_breg0 && op.atom <= DW_OP_breg31) {
      if (!register_value(regs, op.atom - DW_OP_breg0, &v)) return fail("breg of an unknown register");
      stack.push_back(v + op.number);
    } else if (op.atom == DW_OP_bregx) {
      if (!register_value(regs, op.number, &v)) return fail("bregx of an unknown register");
      stack.push_back(v + op.number2);
    } else if ((op.atom >= DW_OP_reg0 && op.atom <= DW_OP_reg31) || op.atom == DW_OP_regx) {
      const uint64_t reg = op.atom == DW_OP_regx ? op.number : uint64_t{op.atom} - DW_OP_reg0;
      if (n != 1 || !register_value(regs, reg, &v)) return fail("register location");
      r.ok = true;
      r.value = v;
      r.location = false;
      return r;
    } else if (op.atom == DW_OP_call_frame_cfa) {
      if (!cfa_known) return fail("call_frame_cfa without a CFA");
      stack.push_back(cfa);
    } else if (op.atom == DW_OP_stack_value) {
      r.location = false;
    } else if (op.atom == DW_OP_nop) {
    } else if (op.atom == DW_OP_const1u || op.atom == DW_OP_const1s || op.atom == DW_OP_const2u ||
               op.atom == DW_OP_const2s || op.atom == DW_OP_const4u || op.atom == DW_OP_const4s ||
               op.atom == DW_OP_const8u || op.atom == DW_OP_const8s || op.atom == DW_OP_constu ||
               op.atom == DW_OP_consts) {
      stack.push_back(op.number);
    } else if (stack.empty()) {
      return fail("stack underflow");
    } else if (op.atom == DW_OP_deref) {
      stack.back() = synthetic_word(stack.back());
    } else if (op.atom == DW_OP_plus_uconst) {
      stack.back() += op.number;
    } else if (op.atom == DW_OP_dup) {
      stack.push_back(stack.back());
    } else if (op.atom == DW_OP_drop) {
      stack.pop_back();
    } else if (op.atom == DW_OP_neg) {
      stack.back() = 0 - stack.back();
    } else if (op.atom == DW_OP_not) {
      stack.back() = ~stack.back();
    } else if (stack.size() < 2) {
      return fail("stack underflow");
    } else if (op.atom == DW_OP_swap) {
      std::swap(stack[stack.size() - 1], stack[stack.size() - 2]);
    } else if (op.atom == DW_OP_over) {
      stack.push_back(stack[stack.size() - 2]);
    } else {
      const uint64_t b = stack.back();
      stack.pop_back();
      if (!binary(op.atom, stack.back(), b, &stack.back())) return fail("operation " + std::to_string(op.atom));
    }
  }
  if (stack.empty()) return fail("empty expression");
  r.ok = true;
  r.value = stack.back();
  return r;
}

void return_address(Dwarf_Frame* frame, const SyntheticRegs& regs, OracleFrame* out) {
  Dwarf_Op mem[3];
  Dwarf_Op* ops = nullptr;
  size_t n = 0;
  if (dwarf_frame_register(frame, 16, mem, &ops, &n) != 0) return;
  if (n == 0) {
    out->ra = ops != nullptr ? OracleFrame::Ra::kUndefined : OracleFrame::Ra::kOther;  // nullptr: same value
    return;
  }
  const Result r = evaluate(ops, n, regs, out->cfa_known, out->cfa);
  if (r.ok && r.location) {
    out->ra = OracleFrame::Ra::kLocation;
    out->ra_location = r.value;
  }
}

void caller_rbp(Dwarf_Frame* frame, const SyntheticRegs& regs, OracleFrame* out) {
  Dwarf_Op mem[3];
  Dwarf_Op* ops = nullptr;
  size_t n = 0;
  if (dwarf_frame_register(frame, 6, mem, &ops, &n) != 0) return;
  if (n == 0) {
    out->rbp_known = ops == nullptr;  // same value; else undefined
    out->rbp = regs.reg[6];
    return;
  }
  const Result r = evaluate(ops, n, regs, out->cfa_known, out->cfa);
  if (!r.ok) return;
  out->rbp_known = true;
  out->rbp = r.location ? synthetic_word(r.value) : r.value;
}

}  // namespace

uint64_t synthetic_word(uint64_t address) {
  uint64_t z = address + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

OracleFrame oracle_frame(Dwarf_CFI* cfi, uint64_t pc, const SyntheticRegs& regs) {
  OracleFrame out;
  Dwarf_Frame* frame = nullptr;
  if (dwarf_cfi_addrframe(cfi, pc, &frame) != 0) return out;
  out.found = true;
  Dwarf_Addr start = 0, end = 0;
  dwarf_frame_info(frame, &start, &end, &out.signal_frame);
  Dwarf_Op* ops = nullptr;
  size_t n = 0;
  if (dwarf_frame_cfa(frame, &ops, &n) == 0 && n > 0) {
    const Result r = evaluate(ops, n, regs, false, 0);
    out.cfa_known = r.ok;
    out.cfa = r.value;
    if (!r.ok) out.why = "CFA: " + r.why;
  }
  return_address(frame, regs, &out);
  caller_rbp(frame, regs, &out);
  std::free(frame);
  return out;
}

OracleCfi::OracleCfi(Elf* elf, bool debug_frame) {
  if (!debug_frame) {
    owned_ = dwarf_getcfi_elf(elf);
    cfi_ = owned_;
    return;
  }
  dwarf_ = dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
  if (dwarf_ != nullptr) cfi_ = dwarf_getcfi(dwarf_);
}

OracleCfi::~OracleCfi() {
  if (owned_ != nullptr) dwarf_cfi_end(owned_);
  if (dwarf_ != nullptr) dwarf_end(dwarf_);
}

}  // namespace jvmkit::native::oracle
