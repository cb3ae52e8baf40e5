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
