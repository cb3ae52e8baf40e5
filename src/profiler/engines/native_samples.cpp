#include "profiler/engines/native_samples.hpp"

#include "profiler/engines/trace_callbacks.hpp"

#include "profiler/context/context_agent.hpp"
#include "profiler/engines/signal_sampler.hpp"
#include "profiler/recording/recording.hpp"

namespace jvmkit::prof {

static_assert(kMarkerReasons == JVMKIT_NATIVE_END_REASON_COUNT, "a marker name per jvmkitNativeEnd");

namespace {

FrameType frame_type_of(jvmtiFrameType kind) {
  switch (kind) {
    case JVMKIT_FRAME_JVM:
      return FrameType::kJvm;
    case JVMKIT_FRAME_KERNEL:
      return FrameType::kKernel;
    case JVMKIT_FRAME_MARKER:
      return FrameType::kSynthetic;
    default:
      return FrameType::kNativeCode;
  }
}

// --- The callbacks: on the library's delivery thread, one trace at a time, while the run that made
// the requests has the library enabled (its Recording is current until Disable has delivered every
// outcome). As the Java requests' callbacks (trace_callbacks.hpp, whose frame and end callbacks
// serve here too), plus the trace's thread and its native frames. ---
void JNICALL on_begin(jthread /*thread*/, jboolean biased, void* /*user_data*/) {
  Recording* recording = current_recording();
  recording->begin_trace(recording->signal_slot(), biased);
  jvmkitTraceThread thread{};
  if (JvmkitCurrentTraceThread(&thread) == JVMTI_ERROR_NONE) {
    recording->set_trace_thread(thread.java_thread == JNI_TRUE, thread.name);
  }
}
jint JNICALL on_native_frame(const jvmkitNativeFrame* frame, void* /*user_data*/) {
  NativeFrameInfo info;
  info.type = frame_type_of(frame->kind);
  info.symbol = frame->symbol;
  info.library = frame->library;
  // A frame without a symbol is named by its function's start (its call-frame information's),
  // so that the samples of one unnamed function share one name, as those of a named one do.
  info.library_offset = frame->function_offset >= 0 ? frame->function_offset : frame->library_offset;
  info.pc = frame->pc;
  info.marker = frame->kind == JVMKIT_FRAME_MARKER ? static_cast<size_t>(frame->end) : 0;
  return current_recording()->add_native_frame(info) ? JVMKIT_FRAME_CONTINUE : JVMKIT_FRAME_STOP;
}
void JNICALL on_failure(jthread /*thread*/, void* user_data) {
  take_sample_context(context_record_from_user_data(user_data));
  Recording* recording = current_recording();
  recording->trace_failed(recording->signal_slot(), tid_from_user_data(user_data));
}

}  // namespace

Error set_native_frames(bool on) {
  const jint mode = on ? (JVMKIT_NATIVE_ON | JVMKIT_NATIVE_WAIT) : JVMKIT_NATIVE_OFF;
  if (jvmtiError err = JvmkitSetNativeFrames(mode); err != JVMTI_ERROR_NONE) {
    return Error(std::string("cstack=") + (on ? "native" : "no") + ": the stack walker refuses it (JVMTI error " +
                 std::to_string(static_cast<int>(err)) + ")");
  }
  return Error::ok();
}

Error choose_native_frames(Options* options, bool* mode_set, std::string* note) {
  const bool native = options->cstack == CStack::kNative;
  if (!native && !*mode_set) return Error::ok();
  Error refused = set_native_frames(native);
  if (refused && native && !options->cstack_given) {
    options->cstack = CStack::kNo;
    *note = "mixed stacks off: " + refused.message();
    refused = set_native_frames(false);
  }
  if (refused) return refused;
  *mode_set = options->cstack == CStack::kNative;
  return Error::ok();
}

jvmtiStackTraceCallbacks native_trace_callbacks() {
  return {&on_begin, &count_trace_end, &count_java_frame, &on_failure};
}

jvmkitNativeFrameCallback native_frame_callback() { return &on_native_frame; }

int64_t native_prepare_ns() {
  jvmkitNativeCounters counters{};
  return JvmkitGetNativeCounters(&counters) == JVMTI_ERROR_NONE ? counters.prepare_ns : 0;
}

void add_native_table_figures(int64_t prepare_base_ns, NativeFigures* f) {
  jvmkitNativeCounters counters{};
  if (JvmkitGetNativeCounters(&counters) != JVMTI_ERROR_NONE) return;
  f->objects_prepared = counters.objects_prepared;
  f->objects_failed = counters.objects_failed;
  f->unwind_rows = counters.unwind_rows;
  f->prepare_ns = counters.prepare_ns - prepare_base_ns;
}

std::array<std::string, kMarkerReasons> marker_labels() {
  std::array<std::string, kMarkerReasons> out;
  for (size_t r = 0; r < kMarkerReasons; r++) out[r] = JvmkitNativeEndName(static_cast<jvmkitNativeEnd>(r));
  return out;
}

}  // namespace jvmkit::prof
