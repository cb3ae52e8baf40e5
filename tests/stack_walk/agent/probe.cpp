// mode=probe and mode=at_call: the trace a current-thread request delivers, compared with JVMTI
// GetStackTrace taken at the same moment.
//
// mode=at_call: requests without a ucontext, made where the thread stands at a call out of Java
// code: in the JVMTI SampledObjectAlloc and MonitorContendedEnter callbacks (option alloc_interval:
// the heap sampling interval in bytes) and in Agent.probe() itself (a JNI native method). Each takes
// GetStackTrace, then requests the trace of the same moment; the thread stays in the callback
// between the two, so the order does not matter. Every such trace must come biased (the JEP's rule
// for a request without a ucontext) and equal GetStackTrace's frame by frame.
//
// mode=probe: Java calls Agent.probe() (a native method) from many places, among them
// frames the VM entered itself (static initialisers, ClassLoader.loadClass run by class
// resolution, reflection through the native accessor, JNI callbacks); probe() takes
// GetStackTrace, then signals its own thread, whose handler requests the unbiased trace with the
// check's number as user_data. Delivery compares the two frame by frame (method; bci for Java
// frames): a trace cut short at a VM-to-Java call shows as a mismatch in the frame count.
//
// Both modes: each trace's JvmkitCurrentTraceTime lies between its check's GetStackTrace (taken
// just before the request) and the return of its request (or its endStackTrace, when delivery came
// first), also for a trace served later; failure callbacks see 0.
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <algorithm>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent.hpp"
#include "base/clock.hpp"
#include "base/thread_id.hpp"
#include "tests/support/queue_signal.hpp"
#include "tests/support/signal_handler.hpp"

namespace walktest {

namespace {

constexpr int kMaxDepth = 1024;

struct Frame {
  jmethodID method;
  jlocation location;
};

std::mutex g_mutex;
// GetStackTrace's frames, and the monotonic clock read before they were taken and after the
// request returned (0 until then): the bounds of the request's JvmkitCurrentTraceTime. The upper
// one tells the request's moment from the delivery's, when the request returned first.
struct Expected {
  std::vector<Frame> frames;
  int64_t before_ns;
  int64_t after_ns = 0;
};
std::unordered_map<int64_t, Expected> g_expected;  // by check number
std::atomic<int64_t> g_next_check{1};
std::atomic<int64_t> g_refused_by_error[128] = {};
std::atomic<int64_t> g_requested{0}, g_refused{0}, g_compared{0}, g_mismatched{0}, g_failed{0};
// Traces flagged JvmkitCurrentTraceServedLater, and those of them that differ from GetStackTrace
// (the only ones that may: they describe a later moment of their thread).
std::atomic<int64_t> g_flagged_later{0}, g_mismatched_later{0};
bool g_trace_served_later = false;  // the trace being delivered (delivery thread only)
// JvmkitCurrentTraceTime: every request was made after the agent was loaded, after its check's
// GetStackTrace and before its trace's endStackTrace, and one trace has one time. Traces that break
// this, and failure callbacks that see a time at all.
const int64_t g_run_start_ns = jvmkit::monotonic_ns();
int64_t g_trace_time_ns = 0;  // the trace being delivered, as beginStackTrace saw it
std::atomic<int64_t> g_time_out_of_range{0}, g_time_in_failure{0}, g_time_bounded{0};
int g_printed = 0;

// mode=at_call: where requests were made, and traces that came unbiased.
enum Source { kSignal, kAlloc, kMonitor, kJni, kSources };
const char* const kSourceNames[kSources] = {"signal", "SampledObjectAlloc", "MonitorContendedEnter", "JNI native"};
std::atomic<int64_t> g_compared_by_source[kSources] = {};
std::atomic<int64_t> g_compared_nested{0};
std::atomic<int64_t> g_failed_by_reason[JVMKIT_FAILURE_REASON_COUNT] =
    {};  // compared traces with a static initializer above their bottom
std::atomic<int64_t> g_unbiased_at_call{0};
std::unordered_map<int64_t, Source> g_source;  // by check number, under g_mutex

// The trace being delivered (callbacks run on one thread).
std::vector<Frame> g_delivered;

int probe_signal() { return SIGRTMIN + 4; }

void probe_handler(int, siginfo_t* info, void* ucontext);

jvmtiStackTraceCallbacks probe_callbacks();

std::string describe(jmethodID method) {
  char* name = nullptr;
  jclass holder = nullptr;
  std::string out = "?";
  if (g_jvmti->GetMethodName(method, &name, nullptr, nullptr) == JVMTI_ERROR_NONE &&
      g_jvmti->GetMethodDeclaringClass(method, &holder) == JVMTI_ERROR_NONE) {
    char* sig = nullptr;
    if (g_jvmti->GetClassSignature(holder, &sig, nullptr) == JVMTI_ERROR_NONE) {
      out = std::string(sig) + "." + name;
      g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(sig));
    }
  }
  if (name) g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
  if (holder) {
    JNIEnv* jni = nullptr;
    g_vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6);
    jni->DeleteLocalRef(holder);
  }
  return out;
}

bool is_native(jmethodID method) {
  jboolean native = JNI_FALSE;
  g_jvmti->IsMethodNative(method, &native);
  return native == JNI_TRUE;
}

// Index of the first frame where the traces differ, or -1 when they agree.
int first_difference(const std::vector<Frame>& expected, const std::vector<Frame>& got) {
  const size_t n = std::min(expected.size(), got.size());
  for (size_t i = 0; i < n; i++) {
    if (expected[i].method != got[i].method) return static_cast<int>(i);
    // A native frame has no bci (GetStackTrace says -1).
    if (!is_native(expected[i].method) && expected[i].location != got[i].location) return static_cast<int>(i);
  }
  return expected.size() == got.size() ? -1 : static_cast<int>(n);
}

void print_mismatch(int64_t check, const std::vector<Frame>& expected, const std::vector<Frame>& got, int at) {
  std::fprintf(stderr, "  check %lld: traces differ at frame %d (GetStackTrace %zu frames, delivered %zu)\n",
               (long long)check, at, expected.size(), got.size());
  const size_t n = std::max(expected.size(), got.size());
  for (size_t i = 0; i < n && i < 40; i++) {
    std::string e = i < expected.size() ? describe(expected[i].method) + "@" + std::to_string(expected[i].location)
                                        : std::string("-");
    std::string g = i < got.size() ? describe(got[i].method) + "@" + std::to_string(got[i].location) : std::string("-");
    std::fprintf(stderr, "    #%zu %s %-70s | %s\n", i, static_cast<int>(i) == at ? "*" : " ", e.c_str(), g.c_str());
  }
}

// Whether TRACE runs a static initializer above its bottom frame: the VM called Java again below
// it (only the delivery thread calls this).
bool has_nested_initializer(const std::vector<Frame>& trace) {
  static std::unordered_map<jmethodID, bool> is_initializer;
  for (size_t i = 0; i + 1 < trace.size(); i++) {
    auto it = is_initializer.find(trace[i].method);
    if (it == is_initializer.end()) {
      char* name = nullptr;
      bool yes = false;
      if (g_jvmti->GetMethodName(trace[i].method, &name, nullptr, nullptr) == JVMTI_ERROR_NONE) {
        yes = std::strcmp(name, "<clinit>") == 0;
        g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
      }
      it = is_initializer.emplace(trace[i].method, yes).first;
    }
    if (it->second) return true;
  }
  return false;
}

void JNICALL on_begin(jthread, jboolean biased, void*) {
  g_delivered.clear();
  g_trace_served_later = JvmkitCurrentTraceServedLater() == JNI_TRUE;
  if (g_trace_served_later) g_flagged_later++;
  g_trace_time_ns = JvmkitCurrentTraceTime();
  if (mode() == "at_call" && biased != JNI_TRUE) g_unbiased_at_call++;
}

jint JNICALL on_frame(jvmtiFrameType, jmethodID method, jlocation location, void*) {
  g_delivered.push_back(Frame{method, location});
  return JVMKIT_FRAME_CONTINUE;
}

void JNICALL on_end(jthread, void* ud) {
  const int64_t check = static_cast<int64_t>(reinterpret_cast<intptr_t>(ud));
  const int64_t now = jvmkit::monotonic_ns();
  const int64_t time = JvmkitCurrentTraceTime();
  std::vector<Frame> expected;
  int64_t before = 0, after = 0;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_expected.find(check);
    if (it == g_expected.end()) {
      violation("probe check %lld delivered but never taken", (long long)check);
      return;
    }
    expected = std::move(it->second.frames);
    before = it->second.before_ns;
    after = it->second.after_ns;
    g_expected.erase(it);
    auto source = g_source.find(check);
    if (source != g_source.end()) {
      g_compared_by_source[source->second]++;
      g_source.erase(source);
    }
  }
  if (after != 0) g_time_bounded++;
  if (time != g_trace_time_ns || time < before || time < g_run_start_ns || time > now || (after != 0 && time > after)) {
    g_time_out_of_range++;
  }
  g_compared++;
  if (has_nested_initializer(expected)) g_compared_nested++;
  const int at = first_difference(expected, g_delivered);
  if (at >= 0 && g_trace_served_later) {
    g_mismatched_later++;
  } else if (at >= 0) {
    g_mismatched++;
    if (g_printed++ < 5) print_mismatch(check, expected, g_delivered, at);
  }
}

void JNICALL on_failure(jthread, void* ud) {
  g_failed++;
  if (JvmkitCurrentTraceTime() != 0) g_time_in_failure++;
  const jvmkitFailureReason reason = JvmkitCurrentFailureReason();
  if (reason >= 0 && reason < JVMKIT_FAILURE_REASON_COUNT) g_failed_by_reason[reason]++;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_expected.erase(static_cast<int64_t>(reinterpret_cast<intptr_t>(ud)));
  g_source.erase(static_cast<int64_t>(reinterpret_cast<intptr_t>(ud)));
}

jvmtiStackTraceCallbacks probe_callbacks() { return jvmtiStackTraceCallbacks{on_begin, on_end, on_frame, on_failure}; }

void probe_handler(int, siginfo_t* info, void* ucontext) {
  const int saved = errno;
  const jvmtiError err = RequestStackTrace(g_jvmti, nullptr, ucontext, probe_callbacks(), info->si_value.sival_ptr);
  if (err != JVMTI_ERROR_NONE) {
    g_refused.fetch_add(1, std::memory_order_relaxed);
    g_refused_by_error[err >= 0 && err < 128 ? err : 0].fetch_add(1, std::memory_order_relaxed);
  }
  errno = saved;
}

// Takes GetStackTrace of the current thread and keeps it for the comparison: the check's number,
// or 0 when there is nothing to compare (no Java frames, or deeper than the probe keeps).
int64_t take_expected(Source source) {
  const int64_t before = jvmkit::monotonic_ns();
  jvmtiFrameInfo frames[kMaxDepth];
  jint count = 0;
  if (g_jvmti->GetStackTrace(nullptr, 0, kMaxDepth, frames, &count) != JVMTI_ERROR_NONE || count == 0 ||
      count >= kMaxDepth) {
    return 0;
  }
  const int64_t check = g_next_check.fetch_add(1);
  std::vector<Frame> expected;
  expected.reserve(static_cast<size_t>(count));
  for (jint i = 0; i < count; i++) expected.push_back(Frame{frames[i].method, frames[i].location});
  std::lock_guard<std::mutex> lock(g_mutex);
  g_expected.emplace(check, Expected{std::move(expected), before});
  g_source.emplace(check, source);
  return check;
}

// The request of CHECK has returned: its trace's time cannot be later than now.
void returned(int64_t check) {
  const int64_t now = jvmkit::monotonic_ns();
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_expected.find(check);
  if (it != g_expected.end()) it->second.after_ns = now;
}

void forget(int64_t check) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_expected.erase(check);
  g_source.erase(check);
}

// mode=at_call: the trace of this moment, requested without a ucontext.
void request_at_call(Source source) {
  const int64_t check = take_expected(source);
  if (check == 0) return;
  g_requested++;
  const jvmtiError err = RequestStackTrace(g_jvmti, nullptr, nullptr, probe_callbacks(),
                                           reinterpret_cast<void*>(static_cast<intptr_t>(check)));
  if (err != JVMTI_ERROR_NONE) {
    forget(check);
    g_refused++;
    g_refused_by_error[err >= 0 && err < 128 ? err : 0]++;
  } else {
    returned(check);
  }
}

void JNICALL on_sampled_alloc(jvmtiEnv*, JNIEnv*, jthread, jobject, jclass, jlong) { request_at_call(kAlloc); }
void JNICALL on_contended_enter(jvmtiEnv*, JNIEnv*, jthread, jobject) { request_at_call(kMonitor); }

}  // namespace

void add_at_call_events(jvmtiCapabilities* caps, jvmtiEventCallbacks* callbacks) {
  caps->can_generate_sampled_object_alloc_events = 1;
  caps->can_generate_monitor_events = 1;
  callbacks->SampledObjectAlloc = on_sampled_alloc;
  callbacks->MonitorContendedEnter = on_contended_enter;
}

bool enable_at_call_events(jint alloc_interval) {
  jvmtiCapabilities have;
  std::memset(&have, 0, sizeof(have));
  g_jvmti->GetCapabilities(&have);
  if (!have.can_generate_sampled_object_alloc_events || !have.can_generate_monitor_events) {
    violation("at_call: the allocation sampling and monitor capabilities were not granted");
    return false;
  }
  return g_jvmti->SetHeapSamplingInterval(alloc_interval) == JVMTI_ERROR_NONE &&
         g_jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, nullptr) ==
             JVMTI_ERROR_NONE &&
         g_jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTER, nullptr) ==
             JVMTI_ERROR_NONE;
}

bool check_at_call(long min_checks, long min_per_source, long min_nested, long max_served_later_permille) {
  jvmkitStackWalkCounters c;
  JvmkitGetStackWalkCounters(&c);
  std::fprintf(stderr, "AT CALL: captured at the call %lld, served later %lld; compared by source:",
               (long long)c.captured_at_call, (long long)c.served_later);
  for (int s = kAlloc; s < kSources; s++) {
    std::fprintf(stderr, " %s %lld", kSourceNames[s], (long long)g_compared_by_source[s].load());
  }
  std::fprintf(stderr, "; with a static initializer run by the VM below their top %lld; failed:",
               (long long)g_compared_nested.load());
  for (int r = 0; r < JVMKIT_FAILURE_REASON_COUNT; r++) {
    if (g_failed_by_reason[r].load() != 0) {
      std::fprintf(stderr, " %s %lld", JvmkitFailureReasonName(static_cast<jvmkitFailureReason>(r)),
                   (long long)g_failed_by_reason[r].load());
    }
  }
  std::fprintf(stderr, "\n");
  // A request served later describes a later moment of its thread and may differ; nothing else
  // may. Each such trace says so (JvmkitCurrentTraceServedLater); those that failed do not.
  std::fprintf(stderr, "AT CALL: traces flagged served later %lld, of them differing %lld\n",
               (long long)g_flagged_later.load(), (long long)g_mismatched_later.load());
  // Not flagged and differing: at most max_unflagged_per_million (default 0) of those compared, and
  // at least max_unflagged (default 0) in any run, however few it compared.
  const int64_t allowed = std::max<int64_t>(g_compared.load() * option_long("max_unflagged_per_million", 0) / 1'000'000,
                                            option_long("max_unflagged", 0));
  bool ok = check_probes(min_checks, allowed);
  if (g_flagged_later.load() > c.served_later) {
    violation("%lld traces flagged served later, but only %lld requests were", (long long)g_flagged_later.load(),
              (long long)c.served_later);
    ok = false;
  }
  if (g_unbiased_at_call.load() != 0) {
    violation("%lld traces of requests without a ucontext came unbiased", (long long)g_unbiased_at_call.load());
    ok = false;
  }
  // Every request here stood at a call with a walkable last Java frame. Only a compiled caller
  // whose CompiledMethodLoad HotSpot has not posted yet (its service thread posts it after the code
  // may already run) leaves a request for later: a few while the program warms up.
  if (c.served_later * 1000 > max_served_later_permille * (c.captured_at_call + c.served_later)) {
    violation("%lld requests without a ucontext were served later (at most %ld per mille allowed)",
              (long long)c.served_later, max_served_later_permille);
    ok = false;
  }
  if (g_compared_nested.load() < min_nested) {
    violation("only %lld checks with a static initializer (need %ld)", (long long)g_compared_nested.load(), min_nested);
    ok = false;
  }
  for (int s = kAlloc; s < kSources; s++) {
    if (g_compared_by_source[s].load() < min_per_source) {
      violation("only %lld checks from %s (need %ld)", (long long)g_compared_by_source[s].load(), kSourceNames[s],
                min_per_source);
      ok = false;
    }
  }
  return ok;
}

void install_probe_handler() { jvmkit::testing::install_siginfo_handler(probe_signal(), probe_handler); }

bool check_probes(long min_checks, int64_t allowed_mismatches) {
  const int64_t pending = [] {
    std::lock_guard<std::mutex> lock(g_mutex);
    return static_cast<int64_t>(g_expected.size());
  }();
  std::fprintf(
      stderr,
      "PROBE: %lld checks requested, %lld refused, %lld compared with GetStackTrace, %lld differ, %lld failed, "
      "%lld undelivered\n",
      (long long)g_requested.load(), (long long)g_refused.load(), (long long)g_compared.load(),
      (long long)g_mismatched.load(), (long long)g_failed.load(), (long long)pending);
  for (int e = 0; e < 128; e++) {
    if (g_refused_by_error[e].load() != 0) {
      std::fprintf(stderr, "  refused with error %d: %lld\n", e, (long long)g_refused_by_error[e].load());
    }
  }
  bool ok = true;
  std::fprintf(stderr,
               "PROBE: %lld traces with a time out of range (%lld delivered after their request returned, so "
               "bounded by that too), %lld failure callbacks with a time\n",
               (long long)g_time_out_of_range.load(), (long long)g_time_bounded.load(),
               (long long)g_time_in_failure.load());
  if (g_time_out_of_range.load() != 0 || g_time_in_failure.load() != 0) {
    violation(
        "JvmkitCurrentTraceTime: %lld traces out of [their GetStackTrace, their request's return or endStackTrace], "
        "%lld failures with a time",
        (long long)g_time_out_of_range.load(), (long long)g_time_in_failure.load());
    ok = false;
  }
  if (JvmkitCurrentTraceTime() != 0) {
    violation("JvmkitCurrentTraceTime outside a trace returned %lld", (long long)JvmkitCurrentTraceTime());
    ok = false;
  }
  if (mode() != "at_call" && g_flagged_later.load() != 0) {
    violation("%lld traces of signal requests flagged served later", (long long)g_flagged_later.load());
    ok = false;
  }
  if (g_mismatched.load() > allowed_mismatches) {
    violation("%lld delivered traces differ from GetStackTrace (%lld allowed)", (long long)g_mismatched.load(),
              (long long)allowed_mismatches);
    ok = false;
  }
  if (g_compared.load() < min_checks) {
    violation("only %lld checks compared (need %ld)", (long long)g_compared.load(), min_checks);
    ok = false;
  }
  return ok;
}

}  // namespace walktest

using namespace walktest;

extern "C" {

// Takes GetStackTrace of the current thread, then the unbiased trace of the same moment.
JNIEXPORT void JNICALL Java_jvmkit_test_walk_Agent_probe(JNIEnv*, jclass) {
  if (mode() == "at_call") {
    request_at_call(kJni);
    return;
  }
  if (mode() != "probe") return;  // the probe signal has no handler in other modes
  const int64_t check = take_expected(kSignal);
  if (check == 0) return;
  g_requested++;
  sigval value;
  value.sival_ptr = reinterpret_cast<void*>(static_cast<intptr_t>(check));
  // Delivered to this thread before the call returns: the handler runs on this very stack.
  if (!jvmkit::testing::queue_signal(jvmkit::current_tid(), probe_signal(), value)) {
    violation("probe: could not signal the current thread");
  } else {
    returned(check);
  }
}

// Calls r.run() through JNI: Java entered again from native code.
JNIEXPORT void JNICALL Java_jvmkit_test_walk_Agent_callBack(JNIEnv* jni, jclass, jobject r) {
  jclass c = jni->GetObjectClass(r);
  jmethodID run = jni->GetMethodID(c, "run", "()V");
  jni->CallVoidMethod(r, run);
  jni->DeleteLocalRef(c);
}

}  // extern "C"
