// The physical frames of a captured stack, for frame types, and what the walk knows of a compiled
// frame's shape (SIGNAL CONTEXT, see physical_walk.cpp).
#pragma once

#include <jni.h>

#include <cstdint>

#include "base/signal_safe.hpp"
#include "hotspot/java_thread.hpp"
#include "stack_walk/code_map.hpp"
#include "stack_walk/physical_frame.hpp"
#include "stack_walk/signal/x64/frame.hpp"

namespace jvmkit::walk {

// Walks physical frames from FROM (a PC in Java code: the interrupted PC, or the caller a recovery
// retried from) while each return address is a call site in Java code the snapshot knows, at most
// MAX frames and within the thread's stack: below STACK_TOP (its highest address, from its
// JavaThread) and at most kMaxWalkReach bytes above FROM.sp. Returns the number written to OUT.
// A Java caller the walk cannot go past (kCallerUnknown) is written as the last frame: a trace
// that ends above it was cut short (AsyncGetCallTrace stops at a frame being deoptimized, and
// reports success).
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
  kCaller,         // the caller is a Java frame: *CALLER and *CALLER_RANGE are set
  kEnd,            // the frame is whole, and its return address leads out of Java code (the call
                   // stub that entered Java, or code the snapshot does not know): *CALLER holds
                   // that return address and the caller's SP and FP, *CALLER_RANGE its code or
                   // nullptr
  kCallerUnknown,  // the frame is whole, and a Java frame (*CALLER_RANGE) follows that cannot be
                   // walked: its return address does not follow a call (HotSpot's deoptimization
                   // handler, patched in while that frame is being deoptimized) and its original
                   // PC cannot be read, or its SP is not above this frame within the bounds
  kUnreadable,     // the frame is not a Java frame, or its slots lie outside the bounds: not counted
};

// The caller of the frame AT in R: a Java caller when its return address is a call site in Java
// code the snapshot knows and every slot read lies in BOUNDS. A walk that meets kCallerUnknown has
// not reached the bottom of the Java frames, though it cannot go on.
// A compiled caller being deoptimized (its return address patched to its nmethod's
// deoptimization handler) stands at the original PC HotSpot saved in its frame
// (nmethod::_orig_pc_offset, read from the code heap): *CALLER gets that PC, and *DEOPTIMIZED (if
// not null) says so.
JVMKIT_SIGNAL_SAFE CallerStep java_caller(const CodeSnapshot& code, const StackBounds& bounds, const CodeRange& r,
                                          const Regs& at, Regs* caller, const CodeRange** caller_range,
                                          bool* deoptimized = nullptr) noexcept;

// True when RET is an address a compiled frame returns to: right after a call in Java code or a
// stub, or anywhere in the interpreter (which pushes its own return entries).
JVMKIT_SIGNAL_SAFE bool plausible_return(const CodeSnapshot& code, uintptr_t ret) noexcept;

// Whether R is Java code: compiled (an nmethod) or the interpreter.
JVMKIT_SIGNAL_SAFE inline bool is_java(const CodeRange* r) noexcept {
  return r != nullptr && (r->kind == CodeKind::kNMethod || r->kind == CodeKind::kInterpreter);
}

// The first Java frame of the stack at the frame anchor LAST (the thread runs outside Java code):
// the anchor's own frame when it is Java code (an interpreter frame, a native wrapper, compiled
// code that called the VM), else the compiled caller of the runtime stub the anchor lies in (C1
// and C2 allocation, locking and call-resolution slow paths), found by its return address: the
// one slot above the anchor that holds an address right after a call into that stub (two such
// slots, one of them left by an earlier call: not found). Reads only between LAST.sp - 8 and
// STACK_TOP. False when neither is found.
JVMKIT_SIGNAL_SAFE bool first_java_frame(const CodeSnapshot& code, const hotspot::LastJavaFrame& last,
                                         uintptr_t stack_top, Regs* out) noexcept;

// The first Java frame of a thread whose frame anchor LAST lies in HotSpot's safepoint handler
// blob: a safepoint poll of compiled code sent it there, and it waits for a safepoint (a
// collector's pause). POLL is the poll's PC (JavaThread::_saved_exception_pc).
//  - A poll in a method's body: the blob keeps POLL in its frame's return-address slot, the one
//    word within kMaxBlobFrame above the anchor that holds it (two such words: not found), with
//    the compiled frame's rbp below it and its SP above. *OUT gets POLL where the nmethod has a
//    debug record there (HotSpot describes the frame by it), else the PC right after the poll,
//    where compilers that record a poll at its end put the record.
//  - A poll on a method's way out (is_return_poll): the method's frame is gone, and the blob's
//    return-address slot holds the return address into its caller: *OUT is the caller at its
//    call. The blob's rbp is the word the VM function it called saved below the anchor (libjvm
//    keeps frame pointers); it must lie above the anchor, hold a Java return address above it,
//    and have POLL among the registers the blob saved right below it (the poll's stub passes it
//    in a scratch register).
// False when POLL is no poll of an nmethod or the frame is not found. Reads only between
// LAST.sp - 16 and STACK_TOP.
constexpr uintptr_t kMaxBlobFrame = 1024 * 8;
JVMKIT_SIGNAL_SAFE bool frame_at_poll(const CodeSnapshot& code, const hotspot::LastJavaFrame& last, uintptr_t poll,
                                      uintptr_t stack_top, Regs* out) noexcept;

// The first Java frame of a thread whose frame anchor LAST lies in HotSpot's deoptimization blob
// while the blob fetches how to unroll a compiled frame (Deoptimization::fetch_unroll_info, where
// AsyncGetCallTrace answers "deoptimizing"): that frame is still whole right above the blob's. It
// returned into its nmethod's deoptimization handler, which entered the blob, so the blob's
// return-address slot (its frame size from the code heap above LAST.sp) holds the handler's
// address in that nmethod, the frame's SP is the slot above, and the frame keeps its original
// PC in its own slot (nmethod::_orig_pc_offset from its SP): *OUT gets that PC, which must have a
// debug record (a call or a poll), as HotSpot describes the frame by it. False otherwise (the
// blob unpacking the frames it made, the offset not known). Reads only between LAST.sp and
// STACK_TOP.
JVMKIT_SIGNAL_SAFE bool frame_being_deoptimized(const CodeSnapshot& code, const hotspot::LastJavaFrame& last,
                                                uintptr_t stack_top, Regs* out) noexcept;

// The current thread's last Java frame, which HotSpot's frame anchor records while the thread runs
// outside Java code (native code, the VM): where AsyncGetCallTrace starts then (first_java_frame of
// the anchor). False when the anchor is unknown or empty, or its SP is not on the stack above SP.
JVMKIT_SIGNAL_SAFE bool anchor_frame(const CodeSnapshot& code, JNIEnv* jni, uintptr_t sp, uintptr_t stack_top,
                                     Regs* out) noexcept;

// Registers an inline intrinsic keeps pushed at most (HotSpot's x86 string_indexof saves four).
constexpr int kMaxIntrinsicPushes = 6;

// How many bytes above SP the compiled frame of R really starts: 0 normally, a few words while an
// inline intrinsic keeps registers pushed. The frame's return-address slot (SP + frame size, C1:
// + 8) must hold a plausible return address. -1 when no candidate within BOUNDS does.
JVMKIT_SIGNAL_SAFE int frame_sp_adjustment(const CodeSnapshot& code, const CodeRange& r, const StackBounds& bounds,
                                           uintptr_t sp) noexcept;

// A leaf call made from a stub of R (C2's out-of-line GC barrier stubs: G1's pre-barrier, ZGC's
// store barrier) after the stub spilled live registers below the frame with "sub rsp, N"
// (HotSpot's SaveLiveRegisters): the bytes between the frame's SP and SP at the call. RET is the
// call's return address, SP the caller's SP at the call (the callee's CFA). Found by the nearest
// "sub rsp, imm" before the call (at most kMaxSpillScan bytes back) whose N puts a plausible
// return address in the frame's return-address slot; 0 when there is none (a call made at the
// frame's own SP).
constexpr int kMaxSpillScan = 384;
JVMKIT_SIGNAL_SAFE uintptr_t leaf_call_spill(const CodeSnapshot& code, const CodeRange& r, const StackBounds& bounds,
                                             uintptr_t ret, uintptr_t sp) noexcept;

}  // namespace jvmkit::walk
