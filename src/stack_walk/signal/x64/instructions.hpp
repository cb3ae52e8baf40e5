// SIGNAL CONTEXT. Recognisers of the few x86-64 instruction patterns the stack walk relies on:
// call sites, and where a HotSpot prologue or epilogue stands. Each reads only code bytes inside
// RANGE (code-cache memory, never unmapped) at or before PC, and decides from bytes alone, so
// that unit tests can feed it byte sequences. May call nothing; allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "base/signal_safe.hpp"
#include "stack_walk/code_map.hpp"

namespace jvmkit::walk {

// Frames larger than this are not taken from a "sub rsp, imm" guess (HotSpot's are far smaller).
constexpr uintptr_t kMaxPrologueFrame = 8 * 1024;

// True when the 2..6 bytes before RET encode a call (E8 rel32, or FF /2 with a register or memory
// operand). RANGE contains RET (code-cache memory, never unmapped); bytes before its start are
// not read.
JVMKIT_SIGNAL_SAFE inline bool follows_call(const CodeRange& range, uintptr_t ret) noexcept {
  if (ret < range.start + 6) return false;
  const auto* p = reinterpret_cast<const uint8_t*>(ret);
  if (p[-5] == 0xE8) return true;                            // call rel32
  if (p[-2] == 0xFF && (p[-1] & 0xF8) == 0xD0) return true;  // call reg (REX.B optional before)
  if (p[-2] == 0xFF && (p[-1] & 0xF8) == 0x10 && (p[-1] & 7) != 4 && (p[-1] & 7) != 5) return true;  // call [reg]
  if (p[-3] == 0xFF && (p[-2] & 0xF8) == 0x50 && (p[-2] & 7) != 4) return true;  // call [reg + disp8]
  if (p[-6] == 0xFF && ((p[-5] & 0xF8) == 0x90 || p[-5] == 0x15)) return true;   // [reg + disp32], [rip + disp32]
  return false;
}

// The length of a safepoint poll of compiled code at P ("test eax, [reg]": 85 /r with rax in the
// reg field, REX.B optional; rsp and r12 need a SIB byte, rbp and r13 a zero disp8: the encodings
// HotSpot's safepoint handler blob steps over), reading at most AVAILABLE bytes; 0 for anything else.
JVMKIT_SIGNAL_SAFE inline size_t safepoint_poll_length(const uint8_t* p, size_t available) noexcept {
  const size_t rex = available >= 1 && p[0] == 0x41 ? 1 : 0;
  if (available < rex + 2 || p[rex] != 0x85 || (p[rex + 1] & 0x38) != 0) return 0;
  const uint8_t mod = p[rex + 1] >> 6, rm = p[rex + 1] & 7;
  if (mod == 0 && rm != 4 && rm != 5) return rex + 2;
  if (available < rex + 3) return 0;
  if (mod == 0 && rm == 4 && p[rex + 2] == 0x24) return rex + 3;
  if (mod == 1 && rm == 5 && p[rex + 2] == 0x00) return rex + 3;
  return 0;
}

// True when a safepoint poll starts at AT, inside RANGE.
JVMKIT_SIGNAL_SAFE inline bool starts_safepoint_poll(const CodeRange& range, uintptr_t at) noexcept {
  return at < range.end && safepoint_poll_length(reinterpret_cast<const uint8_t*>(at), range.end - at) > 0;
}

// True when P holds the poll compiled code makes on its way out ("cmp rsp, [r15 + disp]": 49 3B
// A7 disp32 or 49 3B 67 disp8, the thread's polling word), reading at most AVAILABLE bytes. By
// then the method's frame is gone: a thread stopped there stands in its caller, at the call.
JVMKIT_SIGNAL_SAFE inline bool is_return_poll(const uint8_t* p, size_t available) noexcept {
  return available >= 4 && p[0] == 0x49 && p[1] == 0x3B && (p[2] == 0x67 || (p[2] == 0xA7 && available >= 7));
}

// True when a safepoint poll ends right before AT, inside RANGE. Where a poll's debug record lies
// depends on the compiler and release: at the poll's first byte (C2's loop polls on JDK 17 and 25,
// where HotSpot's own walk of a thread stopped there looks it up) or right after it. Both are kept
// (starts_safepoint_poll below), as a call's record is kept at its return address.
JVMKIT_SIGNAL_SAFE inline bool follows_safepoint_poll(const CodeRange& range, uintptr_t at) noexcept {
  for (size_t length = 2; length <= 4; length++) {
    if (at < range.start + length) return false;
    if (safepoint_poll_length(reinterpret_cast<const uint8_t*>(at - length), length) == length) return true;
  }
  return false;
}

// Decodes "sub rsp, imm" at P (48 83 EC ib, or 48 81 EC id), reading at most AVAILABLE bytes:
// true with *IMM and the instruction's *LENGTH, or false.
JVMKIT_SIGNAL_SAFE inline bool decode_sub_rsp(const uint8_t* p, size_t available, uint32_t* imm,
                                              size_t* length) noexcept {
  if (available < 4 || p[0] != 0x48 || p[2] != 0xEC) return false;
  if (p[1] == 0x83) {
    *imm = p[3];
    *length = 4;
    return true;
  }
  if (p[1] != 0x81 || available < 7) return false;
  std::memcpy(imm, p + 3, sizeof(*imm));
  *length = 7;
  return true;
}

// The length of "mov [rsp + N - 8], rbp" at P (C2's way of saving rbp at the top of a frame of N
// bytes: 48 89 6C 24 disp8, 48 89 AC 24 disp32, or 48 89 2C 24 when N is 8), reading at most
// AVAILABLE bytes; 0 when P holds something else.
JVMKIT_SIGNAL_SAFE inline size_t rbp_store_length(const uint8_t* p, size_t available, uint32_t n) noexcept {
  if (n < 8 || available < 4 || p[0] != 0x48 || p[1] != 0x89 || p[3] != 0x24) return 0;
  if (p[2] == 0x2C) return n == 8 ? 4 : 0;
  if (p[2] == 0x6C) return available >= 5 && p[4] == static_cast<uint8_t>(n - 8) && n - 8 < 0x80 ? 5 : 0;
  uint32_t disp = 0;
  if (p[2] != 0xAC || available < 8) return 0;
  std::memcpy(&disp, p + 4, sizeof(disp));
  return disp == n - 8 ? 8 : 0;
}

// "mov rbp, rsp" at P, in either encoding: 48 89 E5, or 48 8B EC (HotSpot's enter()).
JVMKIT_SIGNAL_SAFE inline bool is_mov_rbp_rsp(const uint8_t* p) noexcept {
  return p[0] == 0x48 && ((p[1] == 0x89 && p[2] == 0xE5) || (p[1] == 0x8B && p[2] == 0xEC));
}

// Register-to-register "mov r64, r64" (REX.W 8B /r or 89 /r, mod 11) at P that writes neither
// rsp nor rbp: moves a stub may make before its frame (the fill stubs keep the count in r11).
JVMKIT_SIGNAL_SAFE inline bool is_plain_register_move(const uint8_t* p) noexcept {
  if ((p[0] & 0xF8) != 0x48 || (p[1] != 0x8B && p[1] != 0x89) || (p[2] & 0xC0) != 0xC0) return false;
  // 8B: the destination is the reg field (REX.R extends it); 89: the r/m field (REX.B).
  const unsigned destination = p[1] == 0x8B ? ((p[2] >> 3) & 7) | ((p[0] & 4) << 1) : (p[2] & 7) | ((p[0] & 1) << 3);
  return destination != 4 && destination != 5;
}

// Where the code of RANGE has made its rbp frame, as an offset from its start, when it begins by
// making one: "push rbp; mov rbp, rsp" (either encoding of the mov), optionally after "endbr64"
// and a few register moves that touch neither rsp nor rbp. 0 when it does not: from that offset
// on, [rbp + 8] is the return address to its caller (until "leave" or "pop rbp").
JVMKIT_SIGNAL_SAFE inline uintptr_t frame_made_at(const CodeRange& range) noexcept {
  constexpr int kMaxMovesBefore = 3;
  const auto* begin = reinterpret_cast<const uint8_t*>(range.start);
  const auto* p = begin;
  const size_t size = range.end - range.start;
  if (size >= 4 && p[0] == 0xF3 && p[1] == 0x0F && p[2] == 0x1E && p[3] == 0xFA) p += 4;  // endbr64
  for (int moves = 0;
       moves < kMaxMovesBefore && static_cast<size_t>(p - begin) + 3 <= size && is_plain_register_move(p); moves++) {
    p += 3;
  }
  if (static_cast<size_t>(p - begin) + 4 > size) return 0;
  return p[0] == 0x55 && is_mov_rbp_rsp(p + 1) ? static_cast<uintptr_t>(p + 4 - begin) : 0;
}

// Where the frame of a stub that pushes one word before it ("push -1", 6A FF or 68 FF FF FF FF,
// then "push rbp; mov rbp, rsp": HotSpot's nmethod entry barrier stub, whose word is a cookie for
// deoptimization) is made, as an offset from its start; 0 for any other stub. Its return address
// is at [rbp + 16].
JVMKIT_SIGNAL_SAFE inline uintptr_t cookie_frame_made_at(const uint8_t* p, size_t size) noexcept {
  size_t push = 0;
  if (size >= 2 && p[0] == 0x6A && p[1] == 0xFF) {
    push = 2;
  } else if (size >= 5 && p[0] == 0x68 && p[1] == 0xFF && p[2] == 0xFF && p[3] == 0xFF && p[4] == 0xFF) {
    push = 5;
  }
  if (push == 0 || size < push + 4) return 0;
  return p[push] == 0x55 && is_mov_rbp_rsp(p + push + 1) ? push + 4 : 0;
}

// The immediate of the last "sub rsp, imm" (48 83 EC ib / 48 81 EC id) that ends at or before PC
// within the 64 bytes before it (inside RANGE), or 0.
JVMKIT_SIGNAL_SAFE inline uintptr_t prologue_frame_size(const CodeRange& range, uintptr_t pc) noexcept {
  uintptr_t from = pc - range.start > 64 ? pc - 64 : range.start;
  uintptr_t size = 0;
  for (uintptr_t a = from; a + 4 <= pc; a++) {
    uint32_t imm = 0;
    size_t length = 0;
    if (decode_sub_rsp(reinterpret_cast<const uint8_t*>(a), pc - a, &imm, &length)) size = imm;
  }
  return size < kMaxPrologueFrame && (size & 7) == 0 ? size : 0;
}

// True when PC is at an epilogue's "pop rbp" right after its "add rsp, imm": the frame's own
// slots are gone, the caller's rbp is at [sp] and the return address at [sp + 8].
JVMKIT_SIGNAL_SAFE inline bool at_epilogue_pop(const CodeRange& range, uintptr_t pc) noexcept {
  const auto* p = reinterpret_cast<const uint8_t*>(pc);
  if (p[0] != 0x5D) return false;
  if (pc >= range.start + 4 && p[-4] == 0x48 && p[-3] == 0x83 && p[-2] == 0xC4) return true;  // add rsp, imm8
  return pc >= range.start + 7 && p[-7] == 0x48 && p[-6] == 0x81 && p[-5] == 0xC4;            // add rsp, imm32
}

// True when the bytes before PC end with an epilogue's "add rsp, imm; pop rbp" followed by at
// most 16 bytes (C2's return poll: cmp/ja): the frame is gone, the return address is at [sp].
JVMKIT_SIGNAL_SAFE inline bool after_epilogue(const CodeRange& range, uintptr_t pc) noexcept {
  const uintptr_t from = pc - range.start > 32 ? pc - 32 : range.start;
  for (uintptr_t a = pc; a-- > from + 4;) {
    const auto* p = reinterpret_cast<const uint8_t*>(a);
    if (p[0] != 0x5D || pc - a > 17) continue;                         // pop rbp, then up to 16 bytes before PC
    if (p[-4] == 0x48 && p[-3] == 0x83 && p[-2] == 0xC4) return true;  // add rsp, imm8
    if (a >= from + 7 && p[-7] == 0x48 && p[-6] == 0x81 && p[-5] == 0xC4) return true;  // add rsp, imm32
  }
  return false;
}

}  // namespace jvmkit::walk
