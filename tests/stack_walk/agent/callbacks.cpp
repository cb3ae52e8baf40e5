// Callbacks that check the API's promises on every call: one outcome per request, never failure
// after begin, the same user_data throughout, request order per sampled thread, thread identity,
// the same truncation flag in every callback of a trace (and none in a failure), and (optionally)
// that every jmethodID resolves inside the callbacks and the depth limit's promises.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent.hpp"

namespace walktest {

namespace {

// All callbacks run on the one delivery thread; atomics only because the totals are read by the
// thread that runs the final checks.
void* g_open = nullptr;
bool g_open_biased = false;
jboolean g_open_truncated = JNI_FALSE;
int64_t g_frames_in_open = 0;
std::vector<jmethodID> g_open_methods;  // the open trace's frames so far
int64_t g_unproven = 0;
std::atomic<int64_t> g_truncated{0}, g_flag_errors{0};
std::atomic<int64_t> g_begins{0}, g_ends{0}, g_failures{0}, g_frames{0}, g_unbiased{0}, g_biased{0};
std::atomic<int64_t> g_failures_by_reason[JVMKIT_FAILURE_REASON_COUNT] = {}, g_failures_without_reason{0};
std::atomic<int64_t> g_identity_checked{0}, g_identity_mismatch{0}, g_invalid_methods{0}, g_order_errors{0};
std::atomic<int64_t> g_types[4] = {};
std::atomic<int64_t> g_top_hot[2] = {}, g_top_total[2] = {}, g_payload_frames{0};
std::string g_hot_name;
std::string g_expect_method;
std::atomic<int64_t> g_expected_frames{0};
bool g_resolve_every_frame = false;
// Traces of mounted virtual threads, those reported for the virtual thread itself, and frames of
// jdk.internal.vm.Continuation.enterSpecial (with resolve_every_frame).
std::atomic<int64_t> g_virtual_traces{0}, g_virtual_named{0}, g_enter_special_frames{0};
// Frame-type truth (option truth=name.T/name.T/*native.T/*.T): expected jvmtiFrameType by method
// name; "*native" for any method declared native, "*" for any other method.
std::map<std::string, int> g_truth;
int g_truth_native = -1, g_truth_default = -1;
std::atomic<int64_t> g_matrix_all[4][4] = {}, g_matrix_top[4][4] = {};
// Call-site truth (option callsites=name.bci.bci/...): a non-top frame of NAME must be at one of
// these bcis (its call sites), whether it is a physical frame or has a method inlined into it.
std::map<std::string, std::vector<long>> g_call_sites;
std::atomic<int64_t> g_call_site_checked{0}, g_call_site_wrong{0};
std::string g_require_method;
bool g_has_required = false;
// The first traces without the required method, printed for diagnosis.
std::string g_open_text;
int g_missing_printed = 0;

// The depth check (set_depth_check): methods classified once by name, the open trace's marks, and
// what was seen by stream (0 unbiased, 1 biased): complete traces by frame count, truncated ones.
enum MethodMark { kOtherMethod = 0, kDepthMethod = 1, kRootMethod = 2 };
std::string g_depth_method, g_root_method;
long g_depth_limit = 0;  // 0: no depth check
std::unordered_map<jmethodID, int> g_method_marks;
bool g_open_has_depth = false, g_open_has_root = false, g_open_last_is_root = false;
// g_complete_at is written by the delivery thread and read by depth_traces (a Java thread).
std::mutex g_complete_mutex;
std::map<int64_t, int64_t> g_complete_at[2];
std::atomic<int64_t> g_truncated_at_limit[2] = {}, g_depth_violations{0};

int mark_of(jmethodID method) {
  auto it = g_method_marks.find(method);
  if (it != g_method_marks.end()) return it->second;
  int mark = kOtherMethod;
  char* name = nullptr;
  if (g_jvmti->GetMethodName(method, &name, nullptr, nullptr) == JVMTI_ERROR_NONE) {
    // depth_method may name several methods, separated by '/': a trace with any of them is checked.
    const std::string wrapped = "/" + g_depth_method + "/";
    const bool depth = wrapped.find("/" + std::string(name) + "/") != std::string::npos;
    mark = depth ? kDepthMethod : g_root_method == name ? kRootMethod : kOtherMethod;
    g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
  }
  g_method_marks.emplace(method, mark);
  return mark;
}

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

void depth_violation(const char* what, void* ud) {
  if (g_depth_violations++ < 5) {
    violation("%s trace %p of %lld frames (limit %ld, truncated %d, has %s %d, ends in %s %d): %s",
              g_open_biased ? "biased" : "unbiased", ud, (long long)g_frames_in_open, g_depth_limit, g_open_truncated,
              g_depth_method.c_str(), g_open_has_depth, g_root_method.c_str(), g_open_last_is_root, what);
    std::fprintf(stderr, "%s", g_open_text.c_str());
  }
}

// At the end of a trace with a frame of the depth method: the limit's promises.
void check_depth_of_open_trace(void* ud) {
  const int stream = g_open_biased ? 1 : 0;
  if (g_frames_in_open > g_depth_limit) depth_violation("more frames than the limit", ud);
  if (g_open_truncated) {
    if (g_frames_in_open != g_depth_limit) depth_violation("truncated, but not at the limit", ud);
    if (g_open_has_root) depth_violation("truncated, but it reaches the thread's root method", ud);
    g_truncated_at_limit[stream]++;
  } else if (!g_open_last_is_root) {
    depth_violation("not truncated, but it does not end in the thread's root method", ud);
  } else {
    std::lock_guard<std::mutex> lock(g_complete_mutex);
    g_complete_at[stream][g_frames_in_open]++;
  }
}

// Expected top frames (option expect_top=WORKLOAD:Class.method|Class.method/...): an unbiased
// trace of thread "worker-WORKLOAD" is right when its top frame is one of the names (simple class
// name, '$' nesting dropped). The others are counted by their top three frames.

struct TopExpectation {
  std::string workload;
  std::vector<std::string> names;
  int64_t right = 0, total = 0;
  std::map<std::string, int64_t> elsewhere;
};
std::vector<TopExpectation> g_tops;
std::map<int, int> g_top_of_thread;  // tracked index -> g_tops index, or -1
std::string g_open_top, g_open_chain;

// "Class.method" of METHOD, or "" when it does not resolve.
std::string simple_name(jmethodID method) {
  char* name = nullptr;
  jclass holder = nullptr;
  std::string out;
  if (g_jvmti->GetMethodName(method, &name, nullptr, nullptr) == JVMTI_ERROR_NONE &&
      g_jvmti->GetMethodDeclaringClass(method, &holder) == JVMTI_ERROR_NONE) {
    char* sig = nullptr;
    if (g_jvmti->GetClassSignature(holder, &sig, nullptr) == JVMTI_ERROR_NONE) {
      std::string c(sig);
      g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(sig));
      if (!c.empty() && c.back() == ';') c.pop_back();
      size_t cut = c.find_last_of("/$");
      out = c.substr(cut == std::string::npos ? 1 : cut + 1) + "." + name;
    }
  }
  if (name) g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
  if (holder) jni_env()->DeleteLocalRef(holder);
  return out;
}

int expectation_of(int index) {
  auto it = g_top_of_thread.find(index);
  if (it != g_top_of_thread.end()) return it->second;
  int found = -1;
  const std::string thread = g_tracked[index].name;
  for (size_t i = 0; i < g_tops.size(); i++) {
    if (thread == "worker-" + g_tops[i].workload) found = static_cast<int>(i);
  }
  g_top_of_thread[index] = found;
  return found;
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

// The identity check of a trace of a mounted virtual thread: its carrier is the sampled thread; the
// thread reported is the virtual thread (its Thread.tid the id given), or the carrier as a
// stand-in when the library could not find it.
void check_virtual_identity(jthread thread, jlong id, const Tracked& t) {
  JNIEnv* jni = jni_env();
  jthread carrier = JvmkitCurrentCarrierThread();
  g_virtual_traces++;
  if (carrier == nullptr) {
    g_identity_mismatch++;
    violation("trace of virtual thread %lld without its carrier", (long long)id);
    return;
  }
  jvmtiThreadInfo info;
  std::memset(&info, 0, sizeof(info));
  if (g_jvmti->GetThreadInfo(carrier, &info) != JVMTI_ERROR_NONE || info.name == nullptr ||
      std::strcmp(info.name, t.name) != 0) {
    g_identity_mismatch++;
    violation("virtual thread trace requested by %s reported with carrier '%s'", t.name, info.name ? info.name : "?");
  }
  if (info.name) g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(info.name));
  if (info.thread_group) jni->DeleteLocalRef(info.thread_group);
  if (info.context_class_loader) jni->DeleteLocalRef(info.context_class_loader);
  if (jni->IsSameObject(thread, carrier)) return;
  jclass thread_class = jni->FindClass("java/lang/Thread");
  jfieldID tid = jni->GetFieldID(thread_class, "tid", "J");
  if (jni->GetLongField(thread, tid) != id) {
    g_identity_mismatch++;
    violation("virtual thread %lld reported as thread %lld", (long long)id, (long long)jni->GetLongField(thread, tid));
  } else {
    g_virtual_named++;
  }
  jni->DeleteLocalRef(thread_class);
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
  if (ud_stream(ud) == 0 && biased) g_unproven++;
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

int64_t unproven_traces() { return g_unproven; }

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

void set_expected_tops(const std::string& spec) {
  // WORKLOAD:Name|Name/WORKLOAD:Name...
  size_t at = 0;
  while (at < spec.size()) {
    size_t end = spec.find('/', at);
    if (end == std::string::npos) end = spec.size();
    std::string item = spec.substr(at, end - at);
    size_t colon = item.find(':');
    if (colon != std::string::npos) {
      TopExpectation t;
      t.workload = item.substr(0, colon);
      std::string names = item.substr(colon + 1);
      size_t n = 0;
      while (n <= names.size()) {
        size_t bar = names.find('|', n);
        if (bar == std::string::npos) bar = names.size();
        t.names.push_back(names.substr(n, bar - n));
        n = bar + 1;
      }
      g_tops.push_back(std::move(t));
    }
    at = end + 1;
  }
}

bool check_expected_tops(long min_permille, long min_samples) {
  bool ok = true;
  for (const TopExpectation& t : g_tops) {
    const double share = t.total ? 1000.0 * static_cast<double>(t.right) / static_cast<double>(t.total) : 0;
    std::string names;
    for (const std::string& n : t.names) names += (names.empty() ? "" : " or ") + n;
    std::fprintf(stderr, "  top frame of worker-%-10s %6.1f%% of %lld moments in %s\n", t.workload.c_str(), share / 10,
                 (long long)t.total, names.c_str());
    std::vector<std::pair<int64_t, std::string>> others;
    for (const auto& [chain, count] : t.elsewhere) others.emplace_back(count, chain);
    std::sort(others.rbegin(), others.rend());
    for (size_t i = 0; i < others.size() && i < 4; i++) {
      std::fprintf(stderr, "      elsewhere %lld: %s\n", (long long)others[i].first, others[i].second.c_str());
    }
    if (t.total < min_samples) {
      violation("worker-%s: %lld samples, fewer than %ld", t.workload.c_str(), (long long)t.total, min_samples);
      ok = false;
    } else if (share < static_cast<double>(min_permille)) {
      violation("worker-%s: top frame right in %.1f%% of samples (need %.1f%%)", t.workload.c_str(), share / 10,
                static_cast<double>(min_permille) / 10);
      ok = false;
    }
  }
  return ok;
}

void set_hot_method_name(const std::string& name) { g_hot_name = name; }
void set_resolve_every_frame(bool on) { g_resolve_every_frame = on; }
void set_expected_method_name(const std::string& name) { g_expect_method = name; }
int64_t expected_method_frames() { return g_expected_frames.load(); }
VirtualSeen virtual_seen() { return {g_virtual_traces.load(), g_virtual_named.load(), g_enter_special_frames.load()}; }
void set_required_method_name(const std::string& name) { g_require_method = name; }

void set_truth(const std::string& spec) {
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t slash = spec.find('/', pos);
    std::string item = spec.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    size_t dot = item.rfind('.');
    if (dot != std::string::npos) {
      std::string name = item.substr(0, dot);
      int type = std::atoi(item.c_str() + dot + 1);
      if (name == "*native") {
        g_truth_native = type;
      } else if (name == "*") {
        g_truth_default = type;
      } else {
        g_truth[name] = type;
      }
    }
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
}

void set_call_sites(const std::string& spec) {
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t slash = spec.find('/', pos);
    std::string item = spec.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    size_t dot = item.find('.');
    if (dot != std::string::npos) {
      std::vector<long>& bcis = g_call_sites[item.substr(0, dot)];
      for (size_t at = dot; at != std::string::npos; at = item.find('.', at + 1)) {
        bcis.push_back(std::strtol(item.c_str() + at + 1, nullptr, 10));
      }
    }
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
}

bool check_frame_types() {
  if (!g_call_sites.empty()) {
    std::fprintf(stderr, "CALL SITES: %lld caller frames checked, %lld at a wrong bci\n",
                 (long long)g_call_site_checked.load(), (long long)g_call_site_wrong.load());
    if (g_call_site_checked.load() < 500) violation("too few caller frames with a known call site");
    // A rare sample ASGCT itself walks from a half-built frame may land elsewhere; anything
    // systematic (a wrong inline chain, a wrong recovery) shows in far more than 0.1%.
    if (g_call_site_wrong.load() * 1000 > g_call_site_checked.load()) {
      violation("%lld of %lld caller frames at a wrong bci (> 0.1%%)", (long long)g_call_site_wrong.load(),
                (long long)g_call_site_checked.load());
    }
  }
  if (g_truth.empty() && g_truth_native < 0 && g_truth_default < 0) return true;
  static const char* kNames[4] = {"interpreter", "jit", "inline", "native"};
  int before = violations();
  for (int m = 0; m < 2; m++) {
    auto& matrix = m == 0 ? g_matrix_top : g_matrix_all;
    int64_t right = 0, total = 0;
    std::fprintf(stderr, "FRAME TYPES (%s frames), rows: truth, columns: reported\n  %-12s", m == 0 ? "top" : "all",
                 "");
    for (const char* n : kNames) std::fprintf(stderr, " %12s", n);
    std::fprintf(stderr, "\n");
    for (int e = 0; e < 4; e++) {
      std::fprintf(stderr, "  %-12s", kNames[e]);
      for (int g = 0; g < 4; g++) {
        int64_t v = matrix[e][g].load();
        std::fprintf(stderr, " %12lld", (long long)v);
        total += v;
        if (e == g) right += v;
      }
      std::fprintf(stderr, "\n");
    }
    double pct = total ? 100.0 * static_cast<double>(right) / static_cast<double>(total) : 0;
    std::fprintf(stderr, "  typed right: %lld of %lld (%.2f%%)\n", (long long)right, (long long)total, pct);
    long min_permille = option_long(m == 0 ? "min_top_permille" : "min_all_permille", m == 0 ? 990 : 950);
    if (total < option_long("min_typed_frames", 500)) {
      violation("only %lld %s frames with a known truth", (long long)total, m == 0 ? "top" : "all");
    } else if (right * 1000 < total * min_permille) {
      violation("%s frames typed right: %.2f%% < %.1f%%", m == 0 ? "top" : "all", pct, min_permille / 10.0);
    }
  }
  return violations() == before;
}

bool check_recovery() {
  jvmkitRecoveryCounters r;
  if (JvmkitGetRecoveryCounters(&r) != JVMTI_ERROR_NONE) {
    violation("JvmkitGetRecoveryCounters failed");
    return false;
  }
  jvmkitStackWalkCounters c;
  JvmkitGetStackWalkCounters(&c);
  int64_t recovered = 0, unrecovered = 0;
  std::fprintf(stderr, "RECOVERY: attempted %lld |", (long long)r.attempted);
  for (int k = 0; k < JVMKIT_RECOVERY_KIND_COUNT; k++) {
    recovered += r.recovered_by_kind[k];
    std::fprintf(stderr, " %s %lld", JvmkitRecoveryKindName(static_cast<jvmkitRecoveryKind>(k)),
                 (long long)r.recovered_by_kind[k]);
  }
  std::fprintf(stderr, " | unrecovered:");
  for (int k = 0; k < JVMKIT_UNRECOVERED_REASON_COUNT; k++) {
    unrecovered += r.unrecovered_by_reason[k];
    std::fprintf(stderr, " %s %lld", JvmkitUnrecoveredReasonName(static_cast<jvmkitUnrecoveredReason>(k)),
                 (long long)r.unrecovered_by_reason[k]);
  }
  double failed_pct = c.accepted ? 100.0 * static_cast<double>(c.failed) / static_cast<double>(c.accepted) : 0;
  std::fprintf(stderr, "\nRECOVERY: recovered %lld (%.2f%% of %lld accepted), failed %lld (%.3f%%)\n",
               (long long)recovered, c.accepted ? 100.0 * static_cast<double>(recovered) / c.accepted : 0.0,
               (long long)c.accepted, (long long)c.failed, failed_pct);
  int before = violations();
  if (r.attempted != recovered + unrecovered) violation("recovery: attempted != recovered + unrecovered");
  // max_failed_permille limits the walks that failed. Failures while a GC moved objects or the
  // thread ran the deoptimization handler come from the moment, not the walk (async-profiler shows
  // them as such); they are limited apart, to 5%: a run with more did not measure the walk.
  // Both are judged per moment: a signal sample that repeated its thread's previous moment (the
  // thread waited for a CPU with several signals queued, handled back to back at one PC: ud_repeat)
  // is counted once, delivered or failed.
  int64_t repeats = 0, repeated_moment_failed = 0, repeated_failed = 0;
  for (int i = 0; i < std::min(g_tracked_count.load(), kMaxTracked); i++) {
    const Tracked& t = g_tracked[i];
    repeats += repeats_of(t);
    for (int reason = 0; reason < JVMKIT_FAILURE_REASON_COUNT; reason++)
      repeated_failed += t.repeats_failed_by_reason[reason];
    repeated_moment_failed +=
        t.repeats_failed_by_reason[JVMKIT_FAILURE_GC_ACTIVE] + t.repeats_failed_by_reason[JVMKIT_FAILURE_DEOPTIMIZING];
  }
  const int64_t moment_failed = c.failed_by_reason[JVMKIT_FAILURE_GC_ACTIVE] +
                                c.failed_by_reason[JVMKIT_FAILURE_DEOPTIMIZING] - repeated_moment_failed;
  const int64_t walk_failed = c.failed - repeated_failed - moment_failed;
  const int64_t moments = c.accepted - repeats;
  const long max_permille = option_long("max_failed_permille", -1);
  if (max_permille >= 0) {
    std::fprintf(stderr,
                 "RECOVERY: of %lld moments (accepted requests but %lld repeated samples), walks failed %lld (%.3f%%, "
                 "allowed %.1f%%), gc_active or deoptimizing %lld\n",
                 (long long)moments, (long long)repeats, (long long)walk_failed,
                 moments ? 100.0 * walk_failed / moments : 0.0, max_permille / 10.0, (long long)moment_failed);
    if (walk_failed * 1000 > moments * max_permille)
      violation("%lld of %lld walks failed (allowed %.1f%%)", (long long)walk_failed, (long long)moments,
                max_permille / 10.0);
    if (moment_failed * 20 > moments)
      violation("%lld of %lld requests failed as gc_active or deoptimizing (allowed 5%%)", (long long)moment_failed,
                (long long)moments);
  }
  long min_recovered = option_long("min_recovered", -1);
  if (min_recovered >= 0 && recovered < min_recovered) {
    violation("only %lld samples recovered (want >= %ld)", (long long)recovered, min_recovered);
  }
  return violations() == before;
}

void set_depth_check(const std::string& depth_method, const std::string& root_method, long max_frames) {
  g_depth_method = depth_method;
  g_root_method = root_method;
  g_depth_limit = max_frames;
}

int64_t depth_traces(long frames, int stream) {
  if (frames > g_depth_limit) return g_truncated_at_limit[stream].load();
  std::lock_guard<std::mutex> lock(g_complete_mutex);
  auto it = g_complete_at[stream].find(frames);
  return it == g_complete_at[stream].end() ? 0 : it->second;
}

// Options: expect_complete=D/D/... (complete traces of exactly D frames, at least min_depth_traces
// unbiased and min_biased_depth_traces biased ones of each), min_complete (unbiased, of any
// length), min_truncated (unbiased; biased:
// min_biased_truncated), max_truncated (both streams).
bool check_depths() {
  int before = violations();
  std::lock_guard<std::mutex> lock(g_complete_mutex);
  std::fprintf(stderr, "DEPTH (limit %ld): truncated at the limit: unbiased %lld, biased %lld\n", g_depth_limit,
               (long long)g_truncated_at_limit[0].load(), (long long)g_truncated_at_limit[1].load());
  for (int stream = 0; stream < 2; stream++) {
    std::fprintf(stderr, "DEPTH: complete %s traces by frames:", stream == 0 ? "unbiased" : "biased");
    for (const auto& [frames, count] : g_complete_at[stream]) {
      if (count >= 5) std::fprintf(stderr, " %lld:%lld", (long long)frames, (long long)count);
    }
    std::fprintf(stderr, "\n");
  }
  if (g_depth_violations.load() != 0) {
    violation("%lld traces broke the depth limit's promises", (long long)g_depth_violations.load());
  }
  int64_t complete = 0;
  for (const auto& [frames, count] : g_complete_at[0]) complete += count;
  if (complete < option_long("min_complete", 0))
    violation("%lld complete unbiased traces (want >= %ld)", (long long)complete, option_long("min_complete", 0));
  const std::string expected = option("expect_complete", "");
  for (size_t at = 0; at < expected.size();) {
    size_t end = expected.find('/', at);
    if (end == std::string::npos) end = expected.size();
    const int64_t frames = std::strtoll(expected.c_str() + at, nullptr, 10);
    const long mins[2] = {option_long("min_depth_traces", 100), option_long("min_biased_depth_traces", 0)};
    for (int stream = 0; stream < 2; stream++) {
      auto it = g_complete_at[stream].find(frames);
      const int64_t got = it == g_complete_at[stream].end() ? 0 : it->second;
      if (got < mins[stream]) {
        violation("%lld complete %s traces of %lld frames (want >= %ld)", (long long)got,
                  stream == 0 ? "unbiased" : "biased", (long long)frames, mins[stream]);
      }
    }
    at = end + 1;
  }
  if (g_truncated_at_limit[0].load() < option_long("min_truncated", 0))
    violation("%lld truncated unbiased traces (want >= %ld)", (long long)g_truncated_at_limit[0].load(),
              option_long("min_truncated", 0));
  if (g_truncated_at_limit[1].load() < option_long("min_biased_truncated", 0))
    violation("%lld truncated biased traces (want >= %ld)", (long long)g_truncated_at_limit[1].load(),
              option_long("min_biased_truncated", 0));
  const long max_truncated = option_long("max_truncated", -1);
  if (max_truncated >= 0 && g_truncated.load() > max_truncated)
    violation("%lld traces flagged truncated (want <= %ld)", (long long)g_truncated.load(), max_truncated);
  return violations() == before;
}

bool check_accounting(const char* when, bool expect_pending_zero) {
  jvmkitStackWalkCounters c;
  if (JvmkitGetStackWalkCounters(&c) != JVMTI_ERROR_NONE) {
    violation("JvmkitGetStackWalkCounters failed");
    return false;
  }
  Seen s = seen();
  SamplerTotals t = sampler_totals();
  std::fprintf(stderr,
               "[%s] send failures %lld, sent %lld handled %lld returned_ok %lld returned_error %lld not_available "
               "%lld | accepted %lld "
               "delivered %lld (unbiased %lld, truncated %lld) failed %lld pending %lld rejected %lld | begins %lld "
               "ends %lld failures %lld frames %lld\n",
               when, (long long)sampler_send_failures(), (long long)t.sent, (long long)t.handled,
               (long long)t.returned_ok, (long long)t.returned_error, (long long)t.returned_not_available,
               (long long)c.accepted, (long long)c.delivered, (long long)c.unbiased, (long long)c.truncated,
               (long long)c.failed, (long long)c.pending, (long long)c.rejected, (long long)s.begins, (long long)s.ends,
               (long long)s.failures, (long long)s.frames);
  for (int r = 0; r < JVMKIT_FAILURE_REASON_COUNT; r++) {
    if (c.failed_by_reason[r]) {
      std::fprintf(stderr, "  failed %s: %lld\n", JvmkitFailureReasonName(static_cast<jvmkitFailureReason>(r)),
                   (long long)c.failed_by_reason[r]);
    }
  }
  for (int r = 0; r < JVMKIT_REJECT_REASON_COUNT; r++) {
    if (c.rejected_by_reason[r]) {
      std::fprintf(stderr, "  rejected %s: %lld\n", JvmkitRejectReasonName(static_cast<jvmkitRejectReason>(r)),
                   (long long)c.rejected_by_reason[r]);
    }
  }
  int before = violations();
  if (c.accepted != c.delivered + c.failed + c.pending) violation("accepted != delivered + failed + pending");
  if (expect_pending_zero && c.pending != 0) violation("pending %lld after Disable", (long long)c.pending);
  if (c.delivered != s.begins || s.begins != s.ends) violation("delivered/begins/ends differ");
  if (c.failed != s.failures)
    violation("failed counter %lld != failure callbacks %lld", (long long)c.failed, (long long)s.failures);
  if (c.unbiased != s.unbiased_begins) violation("unbiased counter != unbiased begins");
  int64_t failed_sum = 0, rejected_sum = 0;
  for (auto v : c.failed_by_reason) failed_sum += v;
  for (auto v : c.rejected_by_reason) rejected_sum += v;
  if (failed_sum != c.failed) violation("failed_by_reason does not add up");
  // Each failure callback was told its reason, and the reasons told add up to the counters.
  if (s.failures_without_reason != 0)
    violation("%lld failure callbacks without a reason", (long long)s.failures_without_reason);
  for (int r = 0; r < JVMKIT_FAILURE_REASON_COUNT; r++) {
    if (s.failures_by_reason[r] != c.failed_by_reason[r]) {
      violation("failure callbacks told %s %lld times, counted %lld",
                JvmkitFailureReasonName(static_cast<jvmkitFailureReason>(r)), (long long)s.failures_by_reason[r],
                (long long)c.failed_by_reason[r]);
    }
  }
  if (JvmkitCurrentFailureReason() != JVMKIT_FAILURE_REASON_COUNT)
    violation("JvmkitCurrentFailureReason outside a failure callback returned a reason");
  // Every trace the callbacks saw flagged is counted, and only those.
  if (c.truncated != s.truncated_begins)
    violation("truncated counter %lld != traces flagged truncated %lld", (long long)c.truncated,
              (long long)s.truncated_begins);
  if (JvmkitCurrentTraceTruncated() != JNI_FALSE)
    violation("JvmkitCurrentTraceTruncated outside a trace said JNI_TRUE");
  if (g_flag_errors.load() != 0) violation("%lld truncation flag errors", (long long)g_flag_errors.load());
  if (rejected_sum != c.rejected) violation("rejected_by_reason does not add up");
  return violations() == before;
}

}  // namespace walktest
