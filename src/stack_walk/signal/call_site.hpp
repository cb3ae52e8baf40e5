// SIGNAL CONTEXT. Whether an address is a return address: the instruction before it is a call.
#pragma once

#include <cstdint>

#include "stack_walk/code_map.hpp"

namespace jvmkit::walk {

// True when the 2..6 bytes before RET encode a call (E8 rel32, or FF /2 with a register or memory
// operand). RANGE contains RET (code-cache memory, never unmapped); bytes before its start are
// not read.
inline bool follows_call(const CodeRange& range, uintptr_t ret) noexcept {
  if (ret < range.start + 6) return false;
  const auto* p = reinterpret_cast<const uint8_t*>(ret);
  if (p[-5] == 0xE8) return true;                            // call rel32
  if (p[-2] == 0xFF && (p[-1] & 0xF8) == 0xD0) return true;  // call reg (REX.B optional before)
  if (p[-2] == 0xFF && (p[-1] & 0xF8) == 0x10 && (p[-1] & 7) != 4 && (p[-1] & 7) != 5) return true;  // call [reg]
  if (p[-3] == 0xFF && (p[-2] & 0xF8) == 0x50 && (p[-2] & 7) != 4) return true;  // call [reg + disp8]
  if (p[-6] == 0xFF && ((p[-5] & 0xF8) == 0x90 || p[-5] == 0x15)) return true;   // [reg + disp32], [rip + disp32]
  return false;
}

}  // namespace jvmkit::walk
