#include "stack_walk/other_thread_request.hpp"

#include "stack_walk/counters.hpp"
#include "stack_walk/signal/capture.hpp"
#include "stack_walk/signal/native_capture.hpp"

namespace jvmkit::walk {

namespace {

jvmtiError reject(CaptureState& state, jvmkitRejectReason reason, jvmtiError error) {
  leave_gate(state);
  counters().count_rejected(reason);
  return error;
}

}  // namespace

jvmtiError request_other_thread(const OwnEnv& env, jthread thread, void* ucontext,
                                const jvmtiStackTraceCallbacks& callbacks, void* user_data, const NativeAsk* native) {
  if (thread == nullptr) return request_current_thread(ucontext, callbacks, user_data, native);
  CaptureState& state = capture_state();
  if (!enter_gate(state)) {
    counters().count_rejected(JVMKIT_REJECT_NOT_ENABLED);
    return JVMTI_ERROR_NOT_AVAILABLE;
  }
  if (native != nullptr && state.native_tables.load(std::memory_order_acquire) == nullptr) {
    return reject(state, JVMKIT_REJECT_NOT_ENABLED, JVMTI_ERROR_NOT_AVAILABLE);
  }
  JNIEnv* jni = current_jni(state.vm.load(std::memory_order_acquire));
  if (jni == nullptr) return reject(state, JVMKIT_REJECT_UNATTACHED_THREAD, JVMTI_ERROR_UNATTACHED_THREAD);
  // The environment exists while the gate is open: it is created before the gate opens and
  // disposed only after Disable saw the gate empty.
  jvmtiEnv* jvmti = env.get();
  jint thread_state = 0;
  if (jvmti->GetThreadState(thread, &thread_state) != JVMTI_ERROR_NONE ||
      (thread_state & JVMTI_THREAD_STATE_ALIVE) == 0) {
    return reject(state, JVMKIT_REJECT_INVALID_THREAD, JVMTI_ERROR_INVALID_THREAD);
  }
  jthread self = nullptr;
  bool is_self = jvmti->GetCurrentThread(&self) == JVMTI_ERROR_NONE && jni->IsSameObject(self, thread);
  if (self != nullptr) jni->DeleteLocalRef(self);
  if (is_self) {
    leave_gate(state);
    return request_current_thread(ucontext, callbacks, user_data, native);
  }
  RequestPool::Producer* pool = state.pool.load(std::memory_order_acquire);
  uint32_t index = 0;
  Request* request = pool->begin(&index, RequestKind::kOtherBiased, callbacks, user_data, jni);
  if (request == nullptr) return reject(state, JVMKIT_REJECT_POOL_FULL, JVMTI_ERROR_OUT_OF_MEMORY);
  request->target = jni->NewGlobalRef(thread);
  if (request->target == nullptr) {
    pool->abandon(index);
    return reject(state, JVMKIT_REJECT_POOL_FULL, JVMTI_ERROR_OUT_OF_MEMORY);
  }
  if (native != nullptr) {
    request->native.requested = true;  // not captured: its trace starts with a not_captured marker
    request->native.callback = native->callback;
  }
  counters().count_accepted();
  pool->publish(index);
  leave_gate(state);
  return JVMTI_ERROR_NONE;
}

}  // namespace jvmkit::walk
