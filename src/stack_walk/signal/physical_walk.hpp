// The physical frames of a captured stack, for frame types (SIGNAL CONTEXT, see physical_walk.cpp).
#pragma once

#include <jni.h>

#include <cstdint>

#include "stack_walk/code_map.hpp"

namespace jvmkit::walk {

// One physical Java frame: an interpreter frame, or a compiled frame of ROOT (whose virtual frames
// are the methods inlined into ROOT, then ROOT itself).
struct PhysicalFrame {
  jmethodID root;  // kNMethod: the nmethod's method; else nullptr
  CodeKind kind;   // kInterpreter or kNMethod
};

constexpr int kMaxPhysicalFrames = 64;

// Registers of the frame a walk starts from.
struct FrameRegs {
  uintptr_t pc, sp, fp;
};

// Walks physical frames from FROM (a PC in Java code: the interrupted PC, or the caller a recovery
// retried from) while each return address is a call site in Java code the snapshot knows, at most
// MAX frames and within the thread's stack: below STACK_TOP (its highest address, from its
// JavaThread) and at most kMaxWalkReach bytes above FROM.sp. Returns the number written to OUT.
int walk_physical(const CodeSnapshot& code, FrameRegs from, uintptr_t stack_top, PhysicalFrame* out, int max) noexcept;

}  // namespace jvmkit::walk
