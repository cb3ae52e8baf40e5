#include "profiler/engines/trace_callbacks.hpp"

#include "profiler/context/context_agent.hpp"
#include "profiler/engines/signal_sampler.hpp"
#include "profiler/recording/recording.hpp"

namespace jvmkit::prof {
namespace {

void JNICALL on_begin(jthread /*thread*/, jboolean biased, void* /*user_data*/) {
  Recording* recording = current_recording();
  recording->begin_trace(recording->signal_slot(), biased);
}

void JNICALL on_failure(jthread /*thread*/, void* user_data) {
  take_sample_context(context_record_from_user_data(user_data));
  Recording* recording = current_recording();
  // Java frames only: a thread without a Java frame ran only the JVM's own code (report.hpp).
  const bool no_java_code = JvmkitCurrentFailureReason() == JVMKIT_FAILURE_NO_JAVA_FRAMES;
  recording->trace_failed(recording->signal_slot(), tid_from_user_data(user_data), no_java_code);
}

}  // namespace

jint JNICALL count_java_frame(jvmtiFrameType type, jmethodID method, jlocation location, void* /*user_data*/) {
  const bool more = current_recording()->add_frame(type, method, location);
  return more ? JVMKIT_FRAME_CONTINUE : JVMKIT_FRAME_STOP;
}

void JNICALL count_trace_end(jthread thread, void* user_data) {
  const SampleContext context = take_sample_context(context_record_from_user_data(user_data));
  current_recording()->end_trace(thread, tid_from_user_data(user_data), JvmkitCurrentTraceTruncated() == JNI_TRUE,
                                 context);
}

jvmtiStackTraceCallbacks java_trace_callbacks() {
  return jvmtiStackTraceCallbacks{&on_begin, &count_trace_end, &count_java_frame, &on_failure};
}

}  // namespace jvmkit::prof
