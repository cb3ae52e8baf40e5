// The C API of include/jvmkit/stack_walk_native.h: argument checks, then the same paths as
// RequestStackTrace (signal/capture.cpp for the current thread, in signal context).
#include <jvmkit/stack_walk_native.h>

#include "base/signal_safe.hpp"
#include "stack_walk/counters.hpp"
#include "stack_walk/library.hpp"
#include "stack_walk/native/native_counters.hpp"
#include "stack_walk/native/native_delivery.hpp"
#include "stack_walk/signal/capture.hpp"
#include "stack_walk/signal/native_capture.hpp"

using jvmkit::walk::counters;
using jvmkit::walk::Library;
using jvmkit::walk::NativeAsk;

namespace {

// The checks of RequestStackTrace, and those of the native request: NONE, or the error (counted).
JVMKIT_SIGNAL_SAFE jvmtiError check_arguments(jvmtiEnv* env, const jvmtiStackTraceCallbacks& callbacks,
                                              const jvmkitNativeRequest* native) noexcept {
  jvmtiError error = JVMTI_ERROR_NONE;
  if (env == nullptr || callbacks.beginStackTrace == nullptr || callbacks.endStackTrace == nullptr ||
      callbacks.stackFrame == nullptr || callbacks.failure == nullptr || native == nullptr ||
      (native->size >= static_cast<jint>(sizeof(jvmkitNativeRequest)) && native->nativeFrame == nullptr)) {
    error = JVMTI_ERROR_NULL_POINTER;
  } else if (native->size < static_cast<jint>(sizeof(jvmkitNativeRequest)) || native->kernel_count < 0 ||
             native->kernel_count > JVMKIT_MAX_KERNEL_FRAMES ||
             (native->kernel_count > 0 && native->kernel_pcs == nullptr)) {
    error = JVMTI_ERROR_ILLEGAL_ARGUMENT;
  }
  if (error != JVMTI_ERROR_NONE) counters().count_rejected(JVMKIT_REJECT_NULL_ARGUMENT);
  return error;
}

}  // namespace

extern "C" {

JVMKIT_WALK_EXPORT jvmtiError JvmkitSetNativeFrames(jint mode) { return Library::instance().set_native_frames(mode); }

// Without a ucontext, the native part starts at this function's caller: its return address, and
// the frame this function made (the builtin makes the compiler keep rbp's frame here).
JVMKIT_WALK_EXPORT JVMKIT_SIGNAL_SAFE jvmtiError JvmkitRequestStackTraceNative(jvmtiEnv* env, jthread* thread,
                                                                               void* ucontext,
                                                                               jvmtiStackTraceCallbacks callbacks,
                                                                               const jvmkitNativeRequest* native,
                                                                               void* user_data) {
  const jvmtiError error = check_arguments(env, callbacks, native);
  if (error != JVMTI_ERROR_NONE) return error;
  NativeAsk ask;
  ask.callback = native->nativeFrame;
  ask.kernel_pcs = native->kernel_pcs;
  ask.kernel_count = native->kernel_count;
  const auto* frame = static_cast<const uintptr_t*>(__builtin_frame_address(0));
  ask.caller = jvmkit::walk::Regs{reinterpret_cast<uintptr_t>(__builtin_return_address(0)),
                                  reinterpret_cast<uintptr_t>(frame) + 16, frame[0]};
  if (thread == nullptr) return jvmkit::walk::request_current_thread(ucontext, callbacks, user_data, &ask);
  return Library::instance().request_thread(*thread, ucontext, callbacks, user_data, &ask);
}

JVMKIT_WALK_EXPORT jvmtiError JvmkitCurrentTraceThread(jvmkitTraceThread* out) {
  return jvmkit::walk::current_trace_thread(out);
}

JVMKIT_WALK_EXPORT jvmtiError JvmkitGetNativeCounters(jvmkitNativeCounters* out) {
  if (out == nullptr) return JVMTI_ERROR_NULL_POINTER;
  jvmkit::walk::native_counters().snapshot(out);
  return JVMTI_ERROR_NONE;
}

JVMKIT_WALK_EXPORT const char* JvmkitNativeEndName(jvmkitNativeEnd end) {
  switch (end) {
    case JVMKIT_NATIVE_END_UNPREPARED_LIBRARY:
      return "unprepared_library";
    case JVMKIT_NATIVE_END_UNKNOWN_CODE:
      return "unknown_code";
    case JVMKIT_NATIVE_END_NO_UNWIND_INFO:
      return "no_unwind_info";
    case JVMKIT_NATIVE_END_UNSUPPORTED_RULE:
      return "unsupported_rule";
    case JVMKIT_NATIVE_END_BAD_FRAME:
      return "bad_frame";
    case JVMKIT_NATIVE_END_DEPTH:
      return "depth";
    case JVMKIT_NATIVE_END_JOIN_MISMATCH:
      return "join_mismatch";
    case JVMKIT_NATIVE_END_NO_STACK_BOUNDS:
      return "no_stack_bounds";
    case JVMKIT_NATIVE_END_JAVA_UNWALKABLE:
      return "java_unwalkable";
    case JVMKIT_NATIVE_END_NOT_CAPTURED:
      return "not_captured";
    default:
      return "unknown";
  }
}

}  // extern "C"
