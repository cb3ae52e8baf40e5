// SIGNAL CONTEXT. The native part of a JvmkitRequestStackTraceNative request for the current
// thread: the kernel PCs the caller passed, then the native frames from the interrupted (or the
// caller's) registers up to where they join the Java frames, or to the thread's first frame.
#pragma once

#include <jni.h>
#include <jvmkit/stack_walk_native.h>

#include "base/signal_safe.hpp"
#include "stack_walk/request_pool.hpp"
#include "stack_walk/signal/capture.hpp"
#include "stack_walk/signal/x64/completeness.hpp"
#include "stack_walk/signal/x64/frame.hpp"

namespace jvmkit::walk {

// What the caller of JvmkitRequestStackTraceNative asked for, checked.
struct NativeAsk {
  jvmkitNativeFrameCallback callback = nullptr;
  const jlong* kernel_pcs = nullptr;
  int kernel_count = 0;
  // Without a ucontext: the frame of the API function's caller (pc its return address).
  Regs caller{};
};

// Fills REQUEST->native (whose pcs must be mapped). JNI is the thread's JNIEnv, or nullptr for
// HotSpot's own threads without one; UC the interrupted context, or nullptr (then ASK.caller).
// ENTRIES: the entry frames the Java capture's proof crossed (capture_with_recovery), or nullptr.
JVMKIT_SIGNAL_SAFE void capture_native(const CaptureState& state, const NativeAsk& ask, JNIEnv* jni,
                                       const ucontext_t* uc, Request* request, EntriesOut* entries) noexcept;

}  // namespace jvmkit::walk
