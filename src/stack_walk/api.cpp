// The C API of include/jvmkit/stack_walk.h. RequestStackTrace's current-thread path is in
// signal/capture.cpp (signal context); everything else goes through the Library (library.hpp).
#include <jvmkit/stack_walk.h>

#include "base/signal_safe.hpp"
#include "stack_walk/counters.hpp"
#include "stack_walk/library.hpp"
#include "stack_walk/signal/capture.hpp"
#include "stack_walk/signal/x64/recovery.hpp"
#include "stack_walk/virtual_threads.hpp"

using jvmkit::walk::counters;
using jvmkit::walk::current_failure_reason;
using jvmkit::walk::Library;

extern "C" {

JVMKIT_WALK_EXPORT JVMKIT_SIGNAL_SAFE jvmtiError RequestStackTrace(jvmtiEnv* env, jthread* thread, void* ucontext,
                                                                   jvmtiStackTraceCallbacks callbacks,
                                                                   void* user_data) {
  // Async-signal-safe up to the thread != NULL branch.
  if (env == nullptr || callbacks.beginStackTrace == nullptr || callbacks.endStackTrace == nullptr ||
      callbacks.stackFrame == nullptr || callbacks.failure == nullptr) {
    counters().count_rejected(JVMKIT_REJECT_NULL_ARGUMENT);
    return JVMTI_ERROR_NULL_POINTER;
  }
  if (thread == nullptr) return jvmkit::walk::request_current_thread(ucontext, callbacks, user_data);
  return Library::instance().request_thread(*thread, ucontext, callbacks, user_data);
}

JVMKIT_WALK_EXPORT jvmtiError EnableRequestStackTrace(jvmtiEnv* env) { return Library::instance().enable(env); }

JVMKIT_WALK_EXPORT jvmtiError DisableRequestStackTrace(jvmtiEnv* env) { return Library::instance().disable(env); }

JVMKIT_WALK_EXPORT jvmtiError DisablesRequestStackTrace(jvmtiEnv* env) { return DisableRequestStackTrace(env); }

JVMKIT_WALK_EXPORT jvmtiError JvmkitSetJavaVM(JavaVM* vm) {
  if (vm == nullptr) return JVMTI_ERROR_NULL_POINTER;
  Library::instance().set_java_vm(vm);
  return JVMTI_ERROR_NONE;
}

JVMKIT_WALK_EXPORT jvmtiError JvmkitGetStackWalkCounters(jvmkitStackWalkCounters* out) {
  if (out == nullptr) return JVMTI_ERROR_NULL_POINTER;
  counters().snapshot(out);
  return JVMTI_ERROR_NONE;
}

JVMKIT_WALK_EXPORT jvmkitFailureReason JvmkitCurrentFailureReason(void) { return current_failure_reason(); }

JVMKIT_WALK_EXPORT jvmtiError JvmkitSetMaxStackDepth(jint max_frames) {
  return Library::instance().set_max_frames(max_frames);
}

JVMKIT_WALK_EXPORT jboolean JvmkitCurrentTraceTruncated(void) { return jvmkit::walk::current_trace_truncated(); }

JVMKIT_WALK_EXPORT jboolean JvmkitCurrentTraceServedLater(void) { return jvmkit::walk::current_trace_served_later(); }

JVMKIT_WALK_EXPORT jlong JvmkitCurrentTraceTime(void) { return jvmkit::walk::current_trace_time(); }

JVMKIT_WALK_EXPORT jvmtiError JvmkitRequestCurrentStackTrace(jvmtiEnv* env, jvmtiStackTraceCallbacks callbacks,
                                                             void* user_data) {
  if (env == nullptr) {
    counters().count_rejected(JVMKIT_REJECT_NULL_ARGUMENT);
    return JVMTI_ERROR_NULL_POINTER;
  }
  return Library::instance().request_current_now(callbacks, user_data);
}

JVMKIT_WALK_EXPORT jvmtiError JvmkitSetCarrierFrames(jboolean include) {
  jvmkit::walk::set_carrier_frames(include != JNI_FALSE);
  return JVMTI_ERROR_NONE;
}

JVMKIT_WALK_EXPORT jlong JvmkitCurrentVirtualThreadId(void) { return jvmkit::walk::current_trace_virtual_id(); }

JVMKIT_WALK_EXPORT jthread JvmkitCurrentCarrierThread(void) { return jvmkit::walk::current_trace_carrier(); }

JVMKIT_WALK_EXPORT const char* JvmkitFailureReasonName(jvmkitFailureReason reason) {
  switch (reason) {
    case JVMKIT_FAILURE_NO_JAVA_FRAMES:
      return "no_java_frames";
    case JVMKIT_FAILURE_NOT_WALKABLE:
      return "not_walkable";
    case JVMKIT_FAILURE_GC_ACTIVE:
      return "gc_active";
    case JVMKIT_FAILURE_DEOPTIMIZING:
      return "deoptimizing";
    case JVMKIT_FAILURE_CLASS_UNLOADED:
      return "class_unloaded";
    case JVMKIT_FAILURE_THREAD_ENDED:
      return "thread_ended";
    case JVMKIT_FAILURE_DISABLED:
      return "disabled";
    case JVMKIT_FAILURE_JVMTI_ERROR:
      return "jvmti_error";
    case JVMKIT_FAILURE_OTHER:
      return "other";
    case JVMKIT_FAILURE_CUT_SHORT:
      return "cut_short";
    default:
      return "unknown";
  }
}

JVMKIT_WALK_EXPORT const char* JvmkitRejectReasonName(jvmkitRejectReason reason) {
  switch (reason) {
    case JVMKIT_REJECT_NOT_ENABLED:
      return "not_enabled";
    case JVMKIT_REJECT_NULL_ARGUMENT:
      return "null_argument";
    case JVMKIT_REJECT_INVALID_THREAD:
      return "invalid_thread";
    case JVMKIT_REJECT_UNATTACHED_THREAD:
      return "unattached_thread";
    case JVMKIT_REJECT_POOL_FULL:
      return "pool_full";
    default:
      return "unknown";
  }
}

JVMKIT_WALK_EXPORT jvmtiError JvmkitGetRecoveryCounters(jvmkitRecoveryCounters* out) {
  if (out == nullptr) return JVMTI_ERROR_NULL_POINTER;
  jvmkit::walk::recovery_counters().snapshot(out);
  return JVMTI_ERROR_NONE;
}

JVMKIT_WALK_EXPORT const char* JvmkitRecoveryKindName(jvmkitRecoveryKind kind) {
  switch (kind) {
    case JVMKIT_RECOVERY_STUB_ENTRY:
      return "stub_entry";
    case JVMKIT_RECOVERY_STUB_PUSHED:
      return "stub_pushed";
    case JVMKIT_RECOVERY_STUB_FRAME:
      return "stub_frame";
    case JVMKIT_RECOVERY_VTABLE_STUB:
      return "vtable_stub";
    case JVMKIT_RECOVERY_NMETHOD_ENTRY:
      return "nmethod_entry";
    case JVMKIT_RECOVERY_NMETHOD_PUSHED:
      return "nmethod_pushed";
    case JVMKIT_RECOVERY_NATIVE_LEAF:
      return "native_leaf";
    case JVMKIT_RECOVERY_NMETHOD_PROLOGUE:
      return "nmethod_prologue";
    case JVMKIT_RECOVERY_SIGNAL_FRAME:
      return "signal_frame";
    case JVMKIT_RECOVERY_NMETHOD_INTRINSIC:
      return "nmethod_intrinsic";
    case JVMKIT_RECOVERY_INTERPRETER_ENTRY:
      return "interpreter_entry";
    case JVMKIT_RECOVERY_SAFEPOINT_POLL:
      return "safepoint_poll";
    case JVMKIT_RECOVERY_STUB_SAVED_REGISTERS:
      return "stub_saved_registers";
    case JVMKIT_RECOVERY_VM_ANCHOR:
      return "vm_anchor";
    case JVMKIT_RECOVERY_DEOPTIMIZED:
      return "deoptimized";
    default:
      return "unknown";
  }
}

JVMKIT_WALK_EXPORT const char* JvmkitUnrecoveredReasonName(jvmkitUnrecoveredReason reason) {
  switch (reason) {
    case JVMKIT_UNRECOVERED_UNKNOWN_PC:
      return "unknown_pc";
    case JVMKIT_UNRECOVERED_INTERPRETER:
      return "interpreter";
    case JVMKIT_UNRECOVERED_NO_CALLER:
      return "no_caller";
    case JVMKIT_UNRECOVERED_RETRY_FAILED:
      return "retry_failed";
    case JVMKIT_UNRECOVERED_NO_STACK_BOUNDS:
      return "no_stack_bounds";
    default:
      return "unknown";
  }
}

}  // extern "C"
