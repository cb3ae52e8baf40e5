// SIGNAL CONTEXT. Where the caller of an unplaceable frame may be (recovery.cpp): the candidates
// for its return address by the kind of code the PC is in and how far its frame is built, and the
// caller's registers for each candidate. Reads code bytes of known ranges and stack words inside
// the bounds given; calls nothing else.
#pragma once

#include <cstdint>

#include "base/signal_safe.hpp"
#include "jvmkit/stack_walk.h"
#include "stack_walk/code_map.hpp"
#include "stack_walk/signal/x64/frame.hpp"

namespace jvmkit::walk {

// Where a caller's return address may be: [sp] (kEntry), [sp + 8] after "push rbp" (kPushed),
// [rbp + 8] in an rbp frame (kFrame), or [sp + N] / [sp + N + 8] once a prologue's "sub rsp, N"
// has run but rbp is not yet saved (kSubbed: C2 stores rbp with a mov after the sub; kSubbedPushed:
// C1 pushes rbp before the sub), or, in a compiled frame that is complete (kComplete), at
// [sp + N] (C2) or [sp + N + 8] (C1), with the caller's rbp saved just below it.
enum class CandidateKind { kEntry, kPushed, kFrame, kSubbed, kSubbedPushed, kComplete };
struct Candidate {
  CandidateKind kind;
  uintptr_t frame_size;  // kSubbed*: N; kFrame: the bytes pushed before rbp
};

// The caller's registers for candidate C, if its slots lie in B and the stack grows strictly
// towards the caller.
JVMKIT_SIGNAL_SAFE bool caller_regs(const StackBounds& b, const Regs& cur, Candidate c, Regs* out) noexcept;

// The candidates for a frame at CUR in RANGE (nullptr: native code), most likely first; FIRST when
// CUR is an interrupted context rather than a return address. At most 4.
JVMKIT_SIGNAL_SAFE int candidates_for(const CodeRange* range, const Regs& cur, bool first, Candidate* out) noexcept;

// True when PC lies in the body of compiled method R, its frame complete: neither in the prologue
// nor in an epilogue.
JVMKIT_SIGNAL_SAFE bool in_nmethod_body(const CodeRange* r, uintptr_t pc) noexcept;

// How a recovery through candidate C of a frame in RANGE is counted.
JVMKIT_SIGNAL_SAFE jvmkitRecoveryKind kind_of(const CodeRange* range, Candidate c) noexcept;

}  // namespace jvmkit::walk
