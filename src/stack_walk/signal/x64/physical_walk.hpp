// The physical frames of a captured stack, for frame types, and what the walk knows of a compiled
// frame's shape (SIGNAL CONTEXT, see physical_walk.cpp).
#pragma once

#include <jni.h>

#include <cstdint>

#include "base/signal_safe.hpp"
#include "stack_walk/code_map.hpp"
#include "stack_walk/physical_frame.hpp"
#include "stack_walk/signal/x64/frame.hpp"

namespace jvmkit::walk {

// Walks physical frames from FROM (a PC in Java code: the interrupted PC, or the caller a recovery
// retried from) while each return address is a call site in Java code the snapshot knows, at most
// MAX frames and within the thread's stack: below STACK_TOP (its highest address, from its
// JavaThread) and at most kMaxWalkReach bytes above FROM.sp. Returns the number written to OUT.
JVMKIT_SIGNAL_SAFE int walk_physical(const CodeSnapshot& code, Regs from, uintptr_t stack_top, PhysicalFrame* out,
                                     int max) noexcept;

// The part of the stack a walk from AT may read: from AT.sp up to at most kMaxWalkReach bytes
// above it, and below STACK_TOP.
constexpr uintptr_t kMaxWalkReach = 256 * 1024;
JVMKIT_SIGNAL_SAFE inline StackBounds walk_bounds(const Regs& at, uintptr_t stack_top) noexcept {
  return StackBounds{at.sp, at.sp + kMaxWalkReach < stack_top ? at.sp + kMaxWalkReach : stack_top};
}

// One step of a walk from a frame to its caller.
enum class CallerStep {
  kCaller,      // the caller is a Java frame: *CALLER and *CALLER_RANGE are set
  kEnd,         // the frame is whole, but no Java caller follows (the call stub that entered Java,
                // or a return address that fails a check)
  kUnreadable,  // the frame is not a Java frame, or its slots lie outside the bounds: not counted
};

// The caller of the frame AT in R: a Java caller when its return address is a call site in Java
// code the snapshot knows and every slot read lies in BOUNDS.
JVMKIT_SIGNAL_SAFE CallerStep java_caller(const CodeSnapshot& code, const StackBounds& bounds, const CodeRange& r,
                                          const Regs& at, Regs* caller, const CodeRange** caller_range) noexcept;

// True when RET is an address a compiled frame returns to: right after a call in Java code or a
// stub, or anywhere in the interpreter (which pushes its own return entries).
JVMKIT_SIGNAL_SAFE bool plausible_return(const CodeSnapshot& code, uintptr_t ret) noexcept;

// Registers an inline intrinsic keeps pushed at most (HotSpot's x86 string_indexof saves four).
constexpr int kMaxIntrinsicPushes = 6;

// How many bytes above SP the compiled frame of R really starts: 0 normally, a few words while an
// inline intrinsic keeps registers pushed. The frame's return-address slot (SP + frame size, C1:
// + 8) must hold a plausible return address. -1 when no candidate within BOUNDS does.
JVMKIT_SIGNAL_SAFE int frame_sp_adjustment(const CodeSnapshot& code, const CodeRange& r, const StackBounds& bounds,
                                           uintptr_t sp) noexcept;

}  // namespace jvmkit::walk
