// SIGNAL CONTEXT. Frameless stubs that save registers: HotSpot's C1 slow_subtype_check stub, for
// one, is called with its arguments pushed, then pushes four registers, may subtract from rsp and
// store more below them, and never sets up rbp. Inside its body the return address is that many
// bytes above SP, and the generic stub rows ([sp], [sp + 8], [rbp + 8]) all miss it. The stack
// depth is read from the stub's own first instructions, and at its exits from the pops before
// "ret". Reads only code bytes inside the range given; calls nothing; allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/signal_safe.hpp"
#include "stack_walk/signal/x64/instructions.hpp"

namespace jvmkit::walk {

// What a stub's first instructions do to the stack, up to an offset.
struct SavedRegisters {
  uint32_t end;     // offset of the first instruction that is not part of the saving (the body)
  uint32_t pushes;  // registers pushed
  uint32_t depth;   // bytes below the return address at END (pushes and "sub rsp")
};

namespace saved_registers_detail {

constexpr int kMaxInstructions = 16;

// "push r" other than rbp, with or without REX.B: its length, or 0.
JVMKIT_SIGNAL_SAFE inline size_t push_length(const uint8_t* p, size_t available) noexcept {
  if (available >= 1 && p[0] >= 0x50 && p[0] <= 0x57 && p[0] != 0x54 && p[0] != 0x55) return 1;
  if (available >= 2 && p[0] == 0x41 && p[1] >= 0x50 && p[1] <= 0x57) return 2;
  return 0;
}

// "mov [rsp + d], r64" or "mov r64, [rsp + d]" (REX.W, 89/8B, SIB base rsp without index), loading
// neither rsp nor rbp: its length, or 0.
JVMKIT_SIGNAL_SAFE inline size_t stack_move_length(const uint8_t* p, size_t available) noexcept {
  if (available < 4 || (p[0] != 0x48 && p[0] != 0x4C) || (p[1] != 0x89 && p[1] != 0x8B)) return 0;
  const unsigned mod = p[2] >> 6, reg = ((p[2] >> 3) & 7) | ((p[0] & 4) << 1), rm = p[2] & 7;
  if (rm != 4 || p[3] != 0x24 || mod == 3) return 0;
  if (p[1] == 0x8B && (reg == 4 || reg == 5)) return 0;
  const size_t length = mod == 0 ? 4 : mod == 1 ? 5 : 8;
  return length <= available ? length : 0;
}

}  // namespace saved_registers_detail

// Reads the saving at the start of CODE (SIZE bytes) up to offset UPTO: true when it begins with
// a push, and *OUT then tells how far it got (END <= UPTO, or where the saving stops) and the
// depth there. Only a stub whose whole saving pushes at least two registers is treated as one
// (the caller checks PUSHES over the whole code).
JVMKIT_SIGNAL_SAFE inline bool read_saved_registers(const uint8_t* code, size_t size, size_t upto,
                                                    SavedRegisters* out) noexcept {
  namespace d = saved_registers_detail;
  size_t at = 0;
  *out = SavedRegisters{};
  if (d::push_length(code, size) == 0) return false;
  for (int i = 0; i < d::kMaxInstructions && at < upto && at < size; i++) {
    const uint8_t* p = code + at;
    uint32_t imm = 0;
    size_t length = d::push_length(p, size - at);
    if (length != 0) {
      out->pushes++;
      out->depth += 8;
    } else if ((length = d::stack_move_length(p, size - at)) != 0) {
    } else if (decode_sub_rsp(p, size - at, &imm, &length) && imm < kMaxPrologueFrame && (imm & 7) == 0) {
      out->depth += imm;
    } else {
      break;
    }
    at += length;
  }
  out->end = static_cast<uint32_t>(at);
  return true;
}

// At an exit: the number of "pop r" (not rsp, rbp) from PC up to a "ret", or -1 when PC is not on
// such a sequence. Reads code bytes from PC up to END.
JVMKIT_SIGNAL_SAFE inline int pops_before_ret(uintptr_t end, uintptr_t pc) noexcept {
  int pops = 0;
  for (uintptr_t a = pc; a < end && pops <= 16;) {
    const uint8_t op = *reinterpret_cast<const uint8_t*>(a);
    if (op == 0xC3) return pops;
    if (op >= 0x58 && op <= 0x5F && op != 0x5C && op != 0x5D) {
      a += 1;
    } else if (op == 0x41 && a + 1 < end && reinterpret_cast<const uint8_t*>(a)[1] >= 0x58 &&
               reinterpret_cast<const uint8_t*>(a)[1] <= 0x5F) {
      a += 2;
    } else {
      return -1;
    }
    pops++;
  }
  return -1;
}

}  // namespace jvmkit::walk
