// One table of bad calls, run in order (the walker's state moves from "never enabled" to
// "enabled" to "disabled" along it). Each row names the call, the error it must return, and the
// reject reason it must be counted under. No row may produce a callback; a valid control request
// in the middle must produce exactly one outcome (so the callbacks are known to work).
#include <pthread.h>
#include <ucontext.h>

#include <cstdio>
#include <functional>
#include <vector>

#include "agent.hpp"

namespace walktest {

namespace {

std::atomic<int> g_bad_callbacks{0};
std::atomic<int> g_control_begins{0}, g_control_ends{0}, g_control_failures{0};

void JNICALL bad_begin(jthread, jboolean, void*) { g_bad_callbacks++; }
void JNICALL bad_end(jthread, void*) { g_bad_callbacks++; }
jint JNICALL bad_frame(jvmtiFrameType, jmethodID, jlocation, void*) {
  g_bad_callbacks++;
  return JVMKIT_FRAME_CONTINUE;
}
void JNICALL bad_failure(jthread, void*) { g_bad_callbacks++; }

void JNICALL control_begin(jthread, jboolean, void*) { g_control_begins++; }
void JNICALL control_end(jthread, void*) { g_control_ends++; }
jint JNICALL control_frame(jvmtiFrameType, jmethodID, jlocation, void*) { return JVMKIT_FRAME_CONTINUE; }
void JNICALL control_failure(jthread, void*) { g_control_failures++; }

const jvmtiStackTraceCallbacks kBad = {bad_begin, bad_end, bad_frame, bad_failure};

struct Row {
  const char* name;
  std::function<jvmtiError()> call;
  jvmtiError expected;
  int reject_reason;  // -1: not a rejected request (Enable/Disable/counters calls, or accepted)
};

jvmtiError request_from_native_thread(bool with_context) {
  struct Args {
    bool with_context;
    jvmtiError result;
  } args{with_context, JVMTI_ERROR_NONE};
  pthread_t t;
  pthread_create(
      &t, nullptr,
      [](void* p) -> void* {
        Args* a = static_cast<Args*>(p);
        ucontext_t uc;
        getcontext(&uc);
        a->result = RequestStackTrace(g_jvmti, nullptr, a->with_context ? &uc : nullptr, kBad, nullptr);
        return nullptr;
      },
      &args);
  pthread_join(t, nullptr);
  return args.result;
}

jobject ended_thread(JNIEnv* jni) {
  jclass tc = jni->FindClass("java/lang/Thread");
  jobject t = jni->NewObject(tc, jni->GetMethodID(tc, "<init>", "()V"));
  jni->CallVoidMethod(t, jni->GetMethodID(tc, "start", "()V"));
  jni->CallVoidMethod(t, jni->GetMethodID(tc, "join", "()V"));
  return t;
}

}  // namespace

bool run_bad_input_table(JNIEnv* jni) {
  jclass tc = jni->FindClass("java/lang/Thread");
  jobject not_started = jni->NewObject(tc, jni->GetMethodID(tc, "<init>", "()V"));
  jobject ended = ended_thread(jni);
  jobject a_string = jni->NewStringUTF("not a thread");
  jthread self = nullptr;
  g_jvmti->GetCurrentThread(&self);
  jvmtiStackTraceCallbacks no_begin = kBad, no_end = kBad, no_frame = kBad, no_failure = kBad, none = {};
  no_begin.beginStackTrace = nullptr;
  no_end.endStackTrace = nullptr;
  no_frame.stackFrame = nullptr;
  no_failure.failure = nullptr;
  const jvmtiStackTraceCallbacks control = {control_begin, control_end, control_frame, control_failure};
  jvmtiEnv* env = g_jvmti;
  auto request = [env](jobject thread, jvmtiStackTraceCallbacks cb, jvmtiEnv* e = nullptr) {
    jthread t = thread;
    return RequestStackTrace(e ? e : env, thread ? &t : nullptr, nullptr, cb, nullptr);
  };
  auto truncated_flag = [] {
    return JvmkitCurrentTraceTruncated() == JNI_FALSE ? JVMTI_ERROR_NONE : JVMTI_ERROR_INTERNAL;
  };
  std::vector<Row> rows = {
      {"SetMaxStackDepth(0)", [] { return JvmkitSetMaxStackDepth(0); }, JVMTI_ERROR_ILLEGAL_ARGUMENT, -1},
      {"SetMaxStackDepth(-1)", [] { return JvmkitSetMaxStackDepth(-1); }, JVMTI_ERROR_ILLEGAL_ARGUMENT, -1},
      {"SetMaxStackDepth(65537)", [] { return JvmkitSetMaxStackDepth(65537); }, JVMTI_ERROR_ILLEGAL_ARGUMENT, -1},
      {"SetMaxStackDepth(65536)", [] { return JvmkitSetMaxStackDepth(65536); }, JVMTI_ERROR_NONE, -1},
      {"SetMaxStackDepth(1)", [] { return JvmkitSetMaxStackDepth(1); }, JVMTI_ERROR_NONE, -1},
      {"SetMaxStackDepth(default)", [] { return JvmkitSetMaxStackDepth(JVMKIT_STACK_DEPTH_DEFAULT); }, JVMTI_ERROR_NONE,
       -1},
      {"CurrentTraceTruncated outside a trace", truncated_flag, JVMTI_ERROR_NONE, -1},
      {"request before Enable", [&] { return request(nullptr, kBad); }, JVMTI_ERROR_NOT_AVAILABLE,
       JVMKIT_REJECT_NOT_ENABLED},
      {"request for a thread before Enable", [&] { return request(self, kBad); }, JVMTI_ERROR_NOT_AVAILABLE,
       JVMKIT_REJECT_NOT_ENABLED},
      {"Disable before Enable", [&] { return DisableRequestStackTrace(env); }, JVMTI_ERROR_NOT_AVAILABLE, -1},
      {"Enable(NULL)", [&] { return EnableRequestStackTrace(nullptr); }, JVMTI_ERROR_NULL_POINTER, -1},
      {"Disable(NULL)", [&] { return DisableRequestStackTrace(nullptr); }, JVMTI_ERROR_NULL_POINTER, -1},
      {"Enable", [&] { return EnableRequestStackTrace(env); }, JVMTI_ERROR_NONE, -1},
      {"Enable twice", [&] { return EnableRequestStackTrace(env); }, JVMTI_ERROR_NOT_AVAILABLE, -1},
      {"SetMaxStackDepth while enabled", [] { return JvmkitSetMaxStackDepth(4096); }, JVMTI_ERROR_WRONG_PHASE, -1},
      {"SetMaxStackDepth(0) while enabled", [] { return JvmkitSetMaxStackDepth(0); }, JVMTI_ERROR_ILLEGAL_ARGUMENT, -1},
      {"CurrentTraceTruncated while enabled", truncated_flag, JVMTI_ERROR_NONE, -1},
      {"request with NULL env", [&] { return RequestStackTrace(nullptr, nullptr, nullptr, kBad, nullptr); },
       JVMTI_ERROR_NULL_POINTER, JVMKIT_REJECT_NULL_ARGUMENT},
      {"NULL beginStackTrace", [&] { return request(nullptr, no_begin); }, JVMTI_ERROR_NULL_POINTER,
       JVMKIT_REJECT_NULL_ARGUMENT},
      {"NULL endStackTrace", [&] { return request(nullptr, no_end); }, JVMTI_ERROR_NULL_POINTER,
       JVMKIT_REJECT_NULL_ARGUMENT},
      {"NULL stackFrame", [&] { return request(nullptr, no_frame); }, JVMTI_ERROR_NULL_POINTER,
       JVMKIT_REJECT_NULL_ARGUMENT},
      {"NULL failure", [&] { return request(nullptr, no_failure); }, JVMTI_ERROR_NULL_POINTER,
       JVMKIT_REJECT_NULL_ARGUMENT},
      {"all callbacks NULL, other thread", [&] { return request(self, none); }, JVMTI_ERROR_NULL_POINTER,
       JVMKIT_REJECT_NULL_ARGUMENT},
      {"thread is a String", [&] { return request(a_string, kBad); }, JVMTI_ERROR_INVALID_THREAD,
       JVMKIT_REJECT_INVALID_THREAD},
      {"thread never started", [&] { return request(not_started, kBad); }, JVMTI_ERROR_INVALID_THREAD,
       JVMKIT_REJECT_INVALID_THREAD},
      {"thread has ended", [&] { return request(ended, kBad); }, JVMTI_ERROR_INVALID_THREAD,
       JVMKIT_REJECT_INVALID_THREAD},
      {"current thread from a non-Java thread", [&] { return request_from_native_thread(false); },
       JVMTI_ERROR_UNATTACHED_THREAD, JVMKIT_REJECT_UNATTACHED_THREAD},
      {"ucontext from a non-Java thread", [&] { return request_from_native_thread(true); },
       JVMTI_ERROR_UNATTACHED_THREAD, JVMKIT_REJECT_UNATTACHED_THREAD},
      {"counters into NULL", [&] { return JvmkitGetStackWalkCounters(nullptr); }, JVMTI_ERROR_NULL_POINTER, -1},
      {"control: valid biased request", [&] { return request(nullptr, control); }, JVMTI_ERROR_NONE, -1},
      {"Disable", [&] { return DisableRequestStackTrace(env); }, JVMTI_ERROR_NONE, -1},
      {"Disable twice", [&] { return DisableRequestStackTrace(env); }, JVMTI_ERROR_NOT_AVAILABLE, -1},
      {"SetMaxStackDepth after Disable", [] { return JvmkitSetMaxStackDepth(JVMKIT_STACK_DEPTH_DEFAULT); },
       JVMTI_ERROR_NONE, -1},
      {"DisablesRequestStackTrace after Disable", [&] { return DisablesRequestStackTrace(env); },
       JVMTI_ERROR_NOT_AVAILABLE, -1},
      {"request after Disable", [&] { return request(nullptr, kBad); }, JVMTI_ERROR_NOT_AVAILABLE,
       JVMKIT_REJECT_NOT_ENABLED},
      {"request for a thread after Disable", [&] { return request(self, kBad); }, JVMTI_ERROR_NOT_AVAILABLE,
       JVMKIT_REJECT_NOT_ENABLED},
  };

  jvmkitStackWalkCounters before, after;
  JvmkitGetStackWalkCounters(&before);
  int64_t expected_rejects[JVMKIT_REJECT_REASON_COUNT] = {};
  bool ok = true;
  for (const Row& row : rows) {
    jvmtiError got = row.call();
    bool row_ok = got == row.expected;
    std::fprintf(stderr, "  %-42s expected %3d got %3d %s\n", row.name, row.expected, got, row_ok ? "ok" : "WRONG");
    if (!row_ok) {
      violation("bad input '%s': expected error %d, got %d", row.name, row.expected, got);
      ok = false;
    }
    if (row.reject_reason >= 0) expected_rejects[row.reject_reason]++;
  }
  JvmkitGetStackWalkCounters(&after);
  for (int r = 0; r < JVMKIT_REJECT_REASON_COUNT; r++) {
    int64_t delta = after.rejected_by_reason[r] - before.rejected_by_reason[r];
    if (delta != expected_rejects[r]) {
      violation("rejected %s: counted %lld, expected %lld", JvmkitRejectReasonName(static_cast<jvmkitRejectReason>(r)),
                (long long)delta, (long long)expected_rejects[r]);
      ok = false;
    }
  }
  if (g_bad_callbacks.load() != 0) {
    violation("%d callbacks were made for rejected requests", g_bad_callbacks.load());
    ok = false;
  }
  // Disable returned: the control request has had its one outcome.
  if (g_control_begins + g_control_failures != 1 || g_control_begins != g_control_ends) {
    violation("control request: %d begins, %d ends, %d failures (want exactly one outcome)", g_control_begins.load(),
              g_control_ends.load(), g_control_failures.load());
    ok = false;
  }
  if (after.accepted - before.accepted != 1) {
    violation("accepted moved by %lld, expected 1 (the control)", (long long)(after.accepted - before.accepted));
    ok = false;
  }
  std::fprintf(stderr, "bad-input table: %zu rows, %s\n", rows.size(), ok ? "all as documented" : "FAILED");
  return ok;
}

}  // namespace walktest
