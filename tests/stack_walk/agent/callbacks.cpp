// Callbacks that check the API's promises on every call: one outcome per request, never failure
// after begin, the same user_data throughout, request order per sampled thread, thread identity,
// and (optionally) that every jmethodID resolves inside the callbacks.
#include <cstdio>
#include <cstring>
#include <string>

#include "agent.hpp"

namespace walktest {

namespace {

// All callbacks run on the one delivery thread; atomics only because the totals are read by the
// thread that runs the final checks.
void* g_open = nullptr;
bool g_open_biased = false;
int64_t g_frames_in_open = 0;
std::atomic<int64_t> g_begins{0}, g_ends{0}, g_failures{0}, g_frames{0}, g_unbiased{0}, g_biased{0};
std::atomic<int64_t> g_identity_checked{0}, g_identity_mismatch{0}, g_invalid_methods{0}, g_order_errors{0};
std::atomic<int64_t> g_types[4] = {};
std::atomic<int64_t> g_top_hot[2] = {}, g_top_total[2] = {}, g_payload_frames{0};
std::string g_hot_name;
std::string g_expect_method;
std::atomic<int64_t> g_expected_frames{0};
bool g_resolve_every_frame = false;

JNIEnv* jni_env() {
  JNIEnv* jni = nullptr;
  g_vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6);
  return jni;
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
  g_frames_in_open = 0;
  g_begins++;
  (biased ? g_biased : g_unbiased)++;
  if (biased != (ud_stream(ud) == 1 ? JNI_TRUE : JNI_FALSE)) {
    violation("request %p: biased=%d, expected %d", ud, biased, ud_stream(ud));
  }
  check_order(ud);
  check_identity(thread, ud);
  g_tracked[ud_index(ud)].delivered++;
}

jint JNICALL on_frame(jvmtiFrameType type, jmethodID method, jlocation location, void* ud) {
  if (ud != g_open) violation("stackFrame with user_data %p inside trace %p", ud, g_open);
  if (type < JVMTI_FRAME_INTERPRETER || type > JVMTI_FRAME_NATIVE) {
    violation("bad frame type %d", type);
  } else {
    g_types[type]++;
  }
  if (location < -1) violation("bad location %lld", (long long)location);
  bool top = g_frames_in_open == 0;
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
  g_open = nullptr;
  g_ends++;
}

void JNICALL on_failure(jthread, void* ud) {
  if (g_open != nullptr) violation("failure(%p) while trace %p is open", ud, g_open);
  g_failures++;
  check_order(ud);
  g_tracked[ud_index(ud)].failed++;
}

}  // namespace

jvmtiStackTraceCallbacks checking_callbacks() {
  return jvmtiStackTraceCallbacks{on_begin, on_end, on_frame, on_failure};
}

Seen seen() {
  Seen s{};
  s.begins = g_begins;
  s.ends = g_ends;
  s.failures = g_failures;
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
               "delivered %lld (unbiased %lld) failed %lld pending %lld rejected %lld | begins %lld ends %lld "
               "failures %lld frames %lld\n",
               when, (long long)sampler_send_failures(), (long long)t.sent, (long long)t.handled,
               (long long)t.returned_ok, (long long)t.returned_error, (long long)t.returned_not_available,
               (long long)c.accepted, (long long)c.delivered, (long long)c.unbiased, (long long)c.failed,
               (long long)c.pending, (long long)c.rejected, (long long)s.begins, (long long)s.ends,
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
  if (rejected_sum != c.rejected) violation("rejected_by_reason does not add up");
  return violations() == before;
}

}  // namespace walktest
