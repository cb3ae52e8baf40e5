#include "stack_walk/current_thread_request.hpp"

#include <vector>

#include "hotspot/java_thread.hpp"
#include "stack_walk/counters.hpp"
#include "stack_walk/signal/capture.hpp"

namespace jvmkit::walk {

namespace {

// The frames GetStackTrace writes, per calling thread (normal context: it may allocate).
thread_local std::vector<jvmtiFrameInfo> t_frames;

// The calling virtual thread's stack into REQUEST (capacity DEPTH frames), from JVMTI.
bool take_own_stack(jvmtiEnv* jvmti, jint depth, Request* request) {
  if (t_frames.size() < static_cast<size_t>(depth)) t_frames.resize(static_cast<size_t>(depth));
  jint count = 0;
  if (jvmti->GetStackTrace(nullptr, 0, depth, t_frames.data(), &count) != JVMTI_ERROR_NONE || count <= 0) return false;
  for (jint i = 0; i < count; i++) {
    request->frames[i].method_id = t_frames[i].method;
    request->frames[i].lineno = static_cast<jint>(t_frames[i].location);
  }
  request->num_frames = count;
  return true;
}

}  // namespace

jvmtiError request_current_thread_now(const OwnEnv& env, const jvmtiStackTraceCallbacks& callbacks, void* user_data) {
  if (callbacks.beginStackTrace == nullptr || callbacks.endStackTrace == nullptr || callbacks.stackFrame == nullptr ||
      callbacks.failure == nullptr) {
    counters().count_rejected(JVMKIT_REJECT_NULL_ARGUMENT);
    return JVMTI_ERROR_NULL_POINTER;
  }
  CaptureState& state = capture_state();
  const hotspot::JavaThreadLayout* layout = hotspot::known_java_thread_layout();
  JNIEnv* jni = current_jni(state.vm.load(std::memory_order_acquire));
  // A platform thread, or a JVM without continuations: the capture at the call is whole.
  if (jni == nullptr || layout == nullptr || !layout->runs_continuation(jni)) {
    return request_current_thread(nullptr, callbacks, user_data);
  }
  if (!enter_gate(state)) {
    counters().count_rejected(JVMKIT_REJECT_NOT_ENABLED);
    return JVMTI_ERROR_NOT_AVAILABLE;
  }
  RequestPool::Producer* pool = state.pool.load(std::memory_order_acquire);
  uint32_t index = 0;
  Request* request = pool->begin(&index, RequestKind::kCaptured, callbacks, user_data, jni);
  if (request == nullptr) {
    leave_gate(state);
    counters().count_rejected(JVMKIT_REJECT_POOL_FULL);
    return JVMTI_ERROR_OUT_OF_MEMORY;
  }
  request->java_thread_id = layout->current_java_thread_id(jni);
  request->at_call = true;
  if (take_own_stack(env.get(), pool->capture_depth(), request)) {
    request->own_stack = true;
    request->completeness = Completeness::kProven;
  } else {
    request->kind = RequestKind::kCurrentBiased;  // served later, as any request that could not be taken
    counters().count_served_later();
  }
  counters().count_at_call();
  counters().count_accepted();
  pool->publish(index, request->kind == RequestKind::kCurrentBiased);
  leave_gate(state);
  return JVMTI_ERROR_NONE;
}

}  // namespace jvmkit::walk
