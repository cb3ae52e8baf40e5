#include "profiler/events/event_samples.hpp"

#include <jvmkit/stack_walk.h>

#include <time.h>

#include <algorithm>
#include <atomic>
#include <memory>

#include "base/thread_id.hpp"
#include "profiler/context/context_agent.hpp"
#include "profiler/recording/method_resolver.hpp"
#include "profiler/recording/recording.hpp"
#include "profiler/utf8.hpp"

namespace jvmkit::prof {
namespace {

struct AtomicCounts {
  std::atomic<int64_t> requested{0};
  std::atomic<int64_t> accepted{0};
  std::atomic<int64_t> dropped{0};
  std::atomic<int64_t> below_threshold{0};
  std::atomic<int64_t> waited{0};
  std::atomic<int64_t> retried{0};
  std::atomic<int64_t> waited_ns{0};
  std::atomic<int64_t> late{0};
};
AtomicCounts g_alloc_counts;
AtomicCounts g_lock_counts;

AtomicCounts& counts_of(EngineKind kind) { return kind == EngineKind::kAlloc ? g_alloc_counts : g_lock_counts; }

EventSample* sample_of(void* user_data) { return static_cast<EventSample*>(user_data); }

// --- The trace callbacks of event samples: on the library's delivery thread, while the run that
// requested them has the library enabled (its Recording is current until Disable has delivered
// every outcome). ---
// A trace the library could not take at the event (the code at the thread's top was too new for
// its walk) was taken later, on its delivery thread: another moment's stack, which would charge the
// event's weight to code that did not make it. Such a sample is left out, as a failure, and counted.
void JNICALL on_begin(jthread /*thread*/, jboolean biased, void* user_data) {
  EventSample* sample = sample_of(user_data);
  sample->late = JvmkitCurrentTraceServedLater() == JNI_TRUE;
  if (sample->late) return;
  Recording* recording = current_recording();
  recording->begin_trace(recording->slot_of(sample->kind), biased);
}
jint JNICALL on_frame(jvmtiFrameType type, jmethodID method, jlocation location, void* user_data) {
  if (sample_of(user_data)->late) return JVMKIT_FRAME_STOP;
  return current_recording()->add_frame(type, method, location) ? JVMKIT_FRAME_CONTINUE : JVMKIT_FRAME_STOP;
}
void JNICALL on_end(jthread thread, void* user_data) {
  std::unique_ptr<EventSample> sample(sample_of(user_data));
  Recording* recording = current_recording();
  if (sample->late) {
    counts_of(sample->kind).late.fetch_add(1, std::memory_order_relaxed);
    recording->trace_failed(recording->slot_of(sample->kind), sample->tid);
    return;
  }
  recording->end_event_trace(thread, sample->tid, JvmkitCurrentTraceTruncated() == JNI_TRUE, sample->weight,
                             sample->class_name, sample->tag, sample->park, sample->context);
}
void JNICALL on_failure(jthread /*thread*/, void* user_data) {
  std::unique_ptr<EventSample> sample(sample_of(user_data));
  Recording* recording = current_recording();
  recording->trace_failed(recording->slot_of(sample->kind), sample->tid);
}

// A full request pool means the library's delivery thread is behind, most often because the
// machine's cores are busy with other work. An event callback runs on the Java thread that made the
// event, in a JVMTI callback, where it may wait: it waits for a free slot, as JFR would walk the
// stack there itself, rather than lose the sample. The wait is bounded, so that a delivery thread
// that has stopped cannot stall the program; each wait and each retried rejection is counted.
constexpr int64_t kMaxWaitNs = 100'000'000;
constexpr int64_t kFirstPauseNs = 50'000;
constexpr int64_t kLongestPauseNs = 2'000'000;

void pause_for(int64_t ns) {
  const timespec pause{0, static_cast<long>(ns)};
  nanosleep(&pause, nullptr);
}

jvmtiError request_waiting_for_a_slot(jvmtiEnv* jvmti, const jvmtiStackTraceCallbacks& callbacks, void* user_data,
                                      AtomicCounts& counts) {
  // Normal context (JVMTI callbacks, Unsafe.park's wrapper): a virtual thread's whole stack.
  jvmtiError error = JvmkitRequestCurrentStackTrace(jvmti, callbacks, user_data);
  if (error != JVMTI_ERROR_OUT_OF_MEMORY) return error;
  counts.waited.fetch_add(1, std::memory_order_relaxed);
  int64_t waited_ns = 0;
  for (int64_t pause = kFirstPauseNs; error == JVMTI_ERROR_OUT_OF_MEMORY && waited_ns < kMaxWaitNs;
       pause = std::min(pause * 2, kLongestPauseNs)) {
    counts.retried.fetch_add(1, std::memory_order_relaxed);
    pause_for(pause);
    waited_ns += pause;
    error = JvmkitRequestCurrentStackTrace(jvmti, callbacks, user_data);
  }
  counts.waited_ns.fetch_add(waited_ns, std::memory_order_relaxed);
  return error;
}

}  // namespace

void request_event_trace(jvmtiEnv* jvmti, EventSample* sample) {
  AtomicCounts& counts = counts_of(sample->kind);
  counts.requested.fetch_add(1, std::memory_order_relaxed);
  sample->tid = jvmkit::current_tid();
  sample->context = current_sample_context(sample->tid);  // on the event's thread: its context now
  // The run's Recording is not touched here: this callback may race with the end of the run that
  // armed it. A trace delivered to a later run without this event is left out there (begin_trace
  // with kNoSlot).
  const jvmtiStackTraceCallbacks callbacks{&on_begin, &on_end, &on_frame, &on_failure};
  if (request_waiting_for_a_slot(jvmti, callbacks, sample, counts) != JVMTI_ERROR_NONE) {
    counts.dropped.fetch_add(1, std::memory_order_relaxed);
    delete sample;
    return;
  }
  counts.accepted.fetch_add(1, std::memory_order_relaxed);
}

jvmtiError request_trace_ahead(jvmtiEnv* jvmti, EngineKind kind, const jvmtiStackTraceCallbacks& callbacks,
                               void* user_data) {
  return request_waiting_for_a_slot(jvmti, callbacks, user_data, counts_of(kind));
}

void count_decided_request(EngineKind kind, bool accepted) {
  AtomicCounts& counts = counts_of(kind);
  counts.requested.fetch_add(1, std::memory_order_relaxed);
  (accepted ? counts.accepted : counts.dropped).fetch_add(1, std::memory_order_relaxed);
}

void count_late_trace(EngineKind kind) { counts_of(kind).late.fetch_add(1, std::memory_order_relaxed); }

EventRequestCounts event_request_counts(EngineKind kind) {
  const AtomicCounts& c = counts_of(kind);
  return EventRequestCounts{c.requested.load(), c.accepted.load(), c.dropped.load(),  c.below_threshold.load(),
                            c.waited.load(),    c.retried.load(),  c.waited_ns.load()};
}

void count_below_threshold(EngineKind kind) { counts_of(kind).below_threshold.fetch_add(1, std::memory_order_relaxed); }

std::string java_class_name(jvmtiEnv* jvmti, jclass klass) {
  char* signature = nullptr;
  if (klass == nullptr || jvmti->GetClassSignature(klass, &signature, nullptr) != JVMTI_ERROR_NONE) return "?";
  std::string name = class_name_from_signature(utf8_from_modified(signature).c_str());
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
  return name;
}

}  // namespace jvmkit::prof
