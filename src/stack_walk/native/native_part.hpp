// What a request for native frames (JvmkitRequestStackTraceNative) keeps in its slot besides the
// Java frames: the kernel PCs it was given, the native run captured above the Java frames, and
// how that run ended. Written by the capture (signal context), read by the delivery thread.
#pragma once

#include <jvmkit/stack_walk_native.h>
#include <sys/types.h>

#include <cstdint>

#include "base/signal_safe.hpp"
#include "stack_walk/signal/x64/native_unwind.hpp"

namespace jvmkit::walk {

// Native PCs (kernel ones included) a slot holds; a deeper native run ends with a depth marker.
inline constexpr int kMaxNativeFrames = 1024;
static_assert(JVMKIT_MAX_KERNEL_FRAMES < kMaxNativeFrames, "kernel frames leave room for user frames");

// Native frames below a Java frame: those between an entry frame (the VM calling Java: the call
// stub, then JavaCalls::call_helper, jni_CallVoidMethod, the C code, the JNI function) and the
// Java frames below it, or the thread's first frames below its first entry into Java.
inline constexpr int kMaxNativeSegments = 16;
struct NativeSegment {
  int32_t before = 0;  // delivered before the trace's Java frame of this index (the trace's length:
                       // after the last one)
  int32_t first = 0;   // pcs[first, first + count)
  int32_t count = 0;
  bool complete = false;                    // reached the Java frame below it, or the thread's first frame
  NativeRunEnd end = NativeRunEnd::kDepth;  // else: why not
  bool mismatch = false;                    // reached Java code, but not the frame below the entry
  uintptr_t end_pc = 0;                     // end kUnknownCode: the PC no object held
};

struct NativePart {
  bool requested = false;  // a JvmkitRequestStackTraceNative request
  jvmkitNativeFrameCallback callback = nullptr;
  pid_t tid = 0;                // the traced thread (current-thread requests)
  bool native_only = false;     // HotSpot's own thread without a JNIEnv: no Java frames to walk
  bool no_java_frames = false;  // native_only, or a thread outside Java code with no last Java frame
  bool captured = false;        // the native run was captured at the request
  int kernel_count = 0;         // pcs[0, kernel_count): the kernel call chain the request passed
  int run_count = 0;            // pcs[kernel_count, kernel_count + run_count): the run above the Java frames
  NativeRunEnd run_end = NativeRunEnd::kDepth;
  uintptr_t end_pc = 0;        // run_end kUnknownCode: the PC no object held (not among the pcs)
  bool join_mismatch = false;  // the run reached Java code, but not where the thread's anchor says
  uintptr_t join_pc = 0, join_sp = 0, anchor_sp = 0, anchor_pc = 0;  // kJoin: where (for diagnosis)
  bool no_stack_bounds = false;
  bool java_from_anchor = false;               // the Java frames were walked from the anchor (a thread inside the VM)
  NativeSegment segments[kMaxNativeSegments];  // below Java frames, top first; their pcs follow the run's
  int segment_count = 0;
  uintptr_t* pcs = nullptr;  // the slot's kMaxNativeFrames words, or nullptr when the session has none

  // A new request's starting values (the storage stays the slot's).
  JVMKIT_SIGNAL_SAFE void begin() noexcept {
    requested = false;
    callback = nullptr;
    tid = 0;
    native_only = false;
    no_java_frames = false;
    captured = false;
    kernel_count = 0;
    run_count = 0;
    run_end = NativeRunEnd::kDepth;
    end_pc = 0;
    join_mismatch = false;
    join_pc = join_sp = anchor_sp = anchor_pc = 0;
    no_stack_bounds = false;
    java_from_anchor = false;
    segment_count = 0;
  }
};

}  // namespace jvmkit::walk
