// Callbacks that check the API's promises on every call: one outcome per request, never failure
// after begin, the same user_data throughout, request order per sampled thread, thread identity,
// the same truncation flag in every callback of a trace (and none in a failure), and (optionally)
// that every jmethodID resolves inside the callbacks and the depth limit's promises.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "agent.hpp"
#include "depth_check.hpp"
#include "expected_tops.hpp"
#include "frame_types.hpp"
#include "trace_state.hpp"
#include "virtual_checks.hpp"

namespace walktest {

// All callbacks run on the one delivery thread; atomics only because the totals are read by the
// thread that runs the final checks.
bool g_open_biased = false;
jboolean g_open_truncated = JNI_FALSE;
int64_t g_frames_in_open = 0;
std::atomic<int64_t> g_truncated{0}, g_flag_errors{0};
std::atomic<int64_t> g_identity_mismatch{0};
// The first traces without the required method, printed for diagnosis.
std::string g_open_text;
int g_missing_printed = 0;

namespace {

void* g_open = nullptr;
std::vector<jmethodID> g_open_methods;  // the open trace's frames so far
int64_t g_unproven_moments = 0, g_proven_moments = 0;
std::atomic<int64_t> g_begins{0}, g_ends{0}, g_failures{0}, g_frames{0}, g_unbiased{0}, g_biased{0};
std::atomic<int64_t> g_failures_by_reason[JVMKIT_FAILURE_REASON_COUNT] = {}, g_failures_without_reason{0};
std::atomic<int64_t> g_identity_checked{0}, g_invalid_methods{0}, g_order_errors{0};
std::atomic<int64_t> g_types[4] = {};
std::atomic<int64_t> g_top_hot[2] = {}, g_top_total[2] = {}, g_payload_frames{0};
std::string g_hot_name;
std::string g_expect_method;
std::atomic<int64_t> g_expected_frames{0};
bool g_resolve_every_frame = false;
std::string g_require_method;
bool g_has_required = false;

// One line of the open trace's text, printed with a violation or a missing method.
void append_frame_line(jmethodID method, jvmtiFrameType type, jlocation location) {
  char* name = nullptr;
  if (g_jvmti->GetMethodName(method, &name, nullptr, nullptr) != JVMTI_ERROR_NONE) return;
  char line[160];
  std::snprintf(line, sizeof(line), "    #%lld %s type %d bci %lld\n", (long long)g_frames_in_open, name, (int)type,
                (long long)location);
  g_open_text += line;
  g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
}

void check_order(void* ud) {
  int index = ud_index(ud);
  if (index < 0 || index >= kMaxTracked) {
    violation("user_data %p names no tracked thread", ud);
    return;
  }
  std::atomic<int64_t>& last = g_tracked[index].last_seq[ud_stream(ud)];
  int64_t seq = ud_seq(ud);
  if (seq <= last.load()) {
    g_order_errors++;
    violation("thread %s: request %lld delivered after %lld", g_tracked[index].name, (long long)seq,
              (long long)last.load());
  }
  last.store(seq);
}

void check_identity(jthread thread, void* ud) {
  Tracked& t = g_tracked[ud_index(ud)];
  if (const jlong id = JvmkitCurrentVirtualThreadId(); id != 0 && thread != nullptr) {
    check_virtual_identity(thread, id, t);
    return;
  }
  if (thread == nullptr) {
    g_identity_mismatch++;
    violation("beginStackTrace for %s with a NULL thread", t.name);
    return;
  }
  jvmtiThreadInfo info;
  std::memset(&info, 0, sizeof(info));
  jvmtiError err = g_jvmti->GetThreadInfo(thread, &info);
  g_identity_checked++;
  if (err != JVMTI_ERROR_NONE || info.name == nullptr || std::strcmp(info.name, t.name) != 0) {
    g_identity_mismatch++;
    violation("trace requested by %s reported for thread '%s' (err %d)", t.name, info.name ? info.name : "?", err);
  }
  if (info.name) g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(info.name));
  JNIEnv* jni = jni_env();
  if (info.thread_group) jni->DeleteLocalRef(info.thread_group);
  if (info.context_class_loader) jni->DeleteLocalRef(info.context_class_loader);
}

void JNICALL on_begin(jthread thread, jboolean biased, void* ud) {
  if (g_open != nullptr) violation("beginStackTrace(%p) while trace %p is open", ud, g_open);
  g_open = ud;
  g_open_biased = biased;
  g_open_truncated = JvmkitCurrentTraceTruncated();
  if (g_open_truncated) g_truncated++;
  g_open_has_depth = g_open_has_root = g_open_last_is_root = false;
  g_frames_in_open = 0;
  g_has_required = false;
  g_open_text.clear();
  g_open_top.clear();
  g_open_chain.clear();
  g_begins++;
  (biased ? g_biased : g_unbiased)++;
  // A biased request's trace is biased. A signal request's trace is unbiased but where the capture
  // could not prove it the thread's whole stack (and nothing knows the thread's bottom frame).
  if (ud_stream(ud) == 1 && !biased) violation("request %p: unbiased, but requested biased", ud);
  // Judged per moment, as the failures are: a thread that waits for a CPU with signals queued is
  // sampled again and again at one PC, and one moment the proof cannot pass would count hundreds
  // of times.
  if (ud_stream(ud) == 0 && !ud_repeat(ud)) (biased ? g_unproven_moments : g_proven_moments)++;
  g_open_methods.clear();
  check_order(ud);
  check_identity(thread, ud);
  g_tracked[ud_index(ud)].delivered++;
  if (ud_repeat(ud)) g_tracked[ud_index(ud)].repeats_delivered++;
}

void check_truncation_flag(const char* where, void* ud) {
  if (JvmkitCurrentTraceTruncated() != g_open_truncated && g_flag_errors++ < 5) {
    violation("JvmkitCurrentTraceTruncated changed within trace %p (%s)", ud, where);
  }
}

jint JNICALL on_frame(jvmtiFrameType type, jmethodID method, jlocation location, void* ud) {
  if (ud != g_open) violation("stackFrame with user_data %p inside trace %p", ud, g_open);
  check_truncation_flag("stackFrame", ud);
  if (g_depth_limit > 0) {
    const int mark = mark_of(method);
    g_open_has_depth = g_open_has_depth || mark == kDepthMethod;
    g_open_has_root = g_open_has_root || mark == kRootMethod;
    g_open_last_is_root = mark == kRootMethod;
    if (g_frames_in_open < 6) append_frame_line(method, type, location);
  }
  if (type < JVMTI_FRAME_INTERPRETER || type > JVMTI_FRAME_NATIVE) {
    violation("bad frame type %d", type);
  } else {
    g_types[type]++;
  }
  if (location < -1) violation("bad location %lld", (long long)location);
  if ((!g_truth.empty() || g_truth_native >= 0 || g_truth_default >= 0 || !g_call_sites.empty()) && type >= 0 &&
      type < 4) {
    char* name = nullptr;
    jboolean is_native = JNI_FALSE;
    if (g_jvmti->GetMethodName(method, &name, nullptr, nullptr) == JVMTI_ERROR_NONE) {
      g_jvmti->IsMethodNative(method, &is_native);
      auto it = g_truth.find(name);
      int expected = it != g_truth.end() ? it->second : is_native ? g_truth_native : g_truth_default;
      if (expected >= 0) {
        g_matrix_all[expected][type]++;
        if (g_frames_in_open == 0) g_matrix_top[expected][type]++;
      }
      auto sites = g_call_sites.find(name);
      if (sites != g_call_sites.end() && g_frames_in_open > 0) {
        g_call_site_checked++;
        if (std::find(sites->second.begin(), sites->second.end(), static_cast<long>(location)) == sites->second.end()) {
          if (g_call_site_wrong++ < 5) {
            std::fprintf(stderr, "  note: frame of %s at bci %lld, not a call site\n", name, (long long)location);
          }
        }
      }
      g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
    }
  }
  if (!g_require_method.empty() && !g_has_required) {
    char* name = nullptr;
    if (g_jvmti->GetMethodName(method, &name, nullptr, nullptr) == JVMTI_ERROR_NONE) {
      g_has_required = g_require_method == name;
      if (g_missing_printed < 8 && g_frames_in_open <= 8) append_frame_line(method, type, location);
      g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
    } else {
      g_invalid_methods++;
      violation("jmethodID %p does not resolve inside the callback", (void*)method);
    }
  }
  if (!g_tops.empty() && !g_open_biased && g_frames_in_open < 3) {
    std::string name = simple_name(method);
    if (g_frames_in_open == 0) g_open_top = name;
    g_open_chain += (g_frames_in_open == 0 ? "" : " < ") + name;
  }
  bool top = g_frames_in_open == 0;
  g_open_methods.push_back(method);
  g_frames_in_open++;
  g_frames++;
  if (g_resolve_every_frame || (top && !g_hot_name.empty())) {
    char* name = nullptr;
    jclass holder = nullptr;
    jvmtiError e1 = g_jvmti->GetMethodName(method, &name, nullptr, nullptr);
    jvmtiError e2 = g_jvmti->GetMethodDeclaringClass(method, &holder);
    if (e1 != JVMTI_ERROR_NONE || e2 != JVMTI_ERROR_NONE || holder == nullptr) {
      g_invalid_methods++;
      violation("jmethodID %p does not resolve inside the callback (%d, %d)", (void*)method, e1, e2);
    } else {
      if (top && !g_hot_name.empty()) {
        int stream = ud_stream(ud);
        g_top_total[stream]++;
        if (g_hot_name == name) g_top_hot[stream]++;
      }
      if (g_resolve_every_frame && !g_expect_method.empty() && g_expect_method == name) g_expected_frames++;
      if (g_resolve_every_frame && std::strcmp(name, "enterSpecial") == 0) g_enter_special_frames++;
      if (g_resolve_every_frame) {
        char* sig = nullptr;
        if (g_jvmti->GetClassSignature(holder, &sig, nullptr) == JVMTI_ERROR_NONE) {
          if (std::strcmp(sig, "Ljvmkit/test/walk/Payload;") == 0) g_payload_frames++;
          g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(sig));
        } else {
          g_invalid_methods++;
          violation("declaring class of %p has no signature", (void*)method);
        }
      }
    }
    if (name) g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
    if (holder) jni_env()->DeleteLocalRef(holder);
  }
  return JVMKIT_FRAME_CONTINUE;
}

void JNICALL on_end(jthread, void* ud) {
  if (ud != g_open) violation("endStackTrace(%p) but the open trace is %p", ud, g_open);
  if (g_frames_in_open == 0) violation("trace %p ended without frames", ud);
  check_truncation_flag("endStackTrace", ud);
  if (g_depth_limit > 0 && g_open_has_depth) check_depth_of_open_trace(ud);
  // Traces from before a thread first reached the required method (its start, class loading on
  // the way) are not counted: the thread was not there yet. Shares are counted per moment: a
  // sample that repeated its thread's previous moment (ud_repeat) is not counted again.
  Tracked& tracked = g_tracked[ud_index(ud)];
  check_bottom_of_trace(tracked, g_open_methods, g_open_biased);
  const bool repeat = ud_repeat(ud);
  if (g_has_required) tracked.reached_required.store(true);
  if (!g_require_method.empty() && !g_has_required && !g_open_biased && !repeat && tracked.reached_required.load()) {
    tracked.missing_required++;
    if (g_missing_printed++ < 8) {
      std::fprintf(stderr, "  trace of %s without %s:\n%s", g_tracked[ud_index(ud)].name, g_require_method.c_str(),
                   g_open_text.c_str());
    }
  }
  if (!g_tops.empty() && !g_open_biased && !repeat) {
    int e = expectation_of(ud_index(ud));
    if (e >= 0) {
      TopExpectation& t = g_tops[static_cast<size_t>(e)];
      t.total++;
      if (std::find(t.names.begin(), t.names.end(), g_open_top) != t.names.end()) {
        t.right++;
      } else {
        t.elsewhere[g_open_chain]++;
      }
    }
  }
  g_open = nullptr;
  g_ends++;
}

void JNICALL on_failure(jthread, void* ud) {
  if (g_open != nullptr) violation("failure(%p) while trace %p is open", ud, g_open);
  g_failures++;
  check_order(ud);
  if (JvmkitCurrentTraceTruncated() != JNI_FALSE && g_flag_errors++ < 5) {
    violation("JvmkitCurrentTraceTruncated is JNI_TRUE inside the failure callback of %p", ud);
  }
  Tracked& t = g_tracked[ud_index(ud)];
  t.failed++;
  const jvmkitFailureReason reason = JvmkitCurrentFailureReason();
  if (reason < 0 || reason >= JVMKIT_FAILURE_REASON_COUNT) {
    g_failures_without_reason++;
    return;
  }
  g_failures_by_reason[reason]++;
  t.failed_by_reason[reason]++;
  if (ud_repeat(ud)) t.repeats_failed_by_reason[reason]++;
}

}  // namespace

jvmtiStackTraceCallbacks checking_callbacks() {
  return jvmtiStackTraceCallbacks{on_begin, on_end, on_frame, on_failure};
}

int64_t unproven_moments() { return g_unproven_moments; }
int64_t payload_frames() { return g_payload_frames.load(); }
int64_t proven_moments() { return g_proven_moments; }

JNIEnv* jni_env() {
  JNIEnv* jni = nullptr;
  g_vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6);
  return jni;
}

Seen seen() {
  Seen s{};
  s.begins = g_begins;
  s.ends = g_ends;
  s.failures = g_failures;
  for (int r = 0; r < JVMKIT_FAILURE_REASON_COUNT; r++) s.failures_by_reason[r] = g_failures_by_reason[r];
  s.failures_without_reason = g_failures_without_reason;
  s.truncated_begins = g_truncated;
  s.frames = g_frames;
  s.unbiased_begins = g_unbiased;
  s.biased_begins = g_biased;
  s.identity_checked = g_identity_checked;
  s.identity_mismatches = g_identity_mismatch;
  s.invalid_methods = g_invalid_methods;
  s.order_errors = g_order_errors;
  for (int i = 0; i < 2; i++) {
    s.top_in_hot[i] = g_top_hot[i];
    s.top_total[i] = g_top_total[i];
  }
  s.frames_of_payload = g_payload_frames;
  for (int i = 0; i < 4; i++) s.frames_by_type[i] = g_types[i];
  return s;
}

void set_hot_method_name(const std::string& name) { g_hot_name = name; }
void set_resolve_every_frame(bool on) { g_resolve_every_frame = on; }
void set_expected_method_name(const std::string& name) { g_expect_method = name; }
int64_t expected_method_frames() { return g_expected_frames.load(); }
void set_required_method_name(const std::string& name) { g_require_method = name; }

}  // namespace walktest
