// The bias and depth tests' second sampler: a Java agent thread asking every 5 ms for a biased trace
// of the first tracked thread named biased_target (hot- by default).
#include <time.h>

#include <string>

#include "agent.hpp"
#include "biased_sampler.hpp"

namespace walktest {

std::atomic<int64_t> g_deoptimizations{0};
void JNICALL on_single_step(jvmtiEnv*, JNIEnv*, jthread, jmethodID, jlocation) {}

namespace {

std::atomic<bool> g_biased_running{false};
std::atomic<bool> g_biased_done{false};
// With deoptimize_ms=N it also deoptimizes the target's compiled frames every N ms: enabling
// single-step events for a thread makes HotSpot deoptimize every compiled frame on its stack (the
// return address into each is replaced by its nmethod's deoptimization handler until the frame is
// returned to); they are disabled again at once.
void JNICALL biased_sampler(jvmtiEnv*, JNIEnv*, void*) {
  int64_t seq = 0;
  const std::string target = option("biased_target", "hot-");
  const long deoptimize_ms = option_long("deoptimize_ms", 0);
  int64_t next_deoptimization = 0;
  while (g_biased_running.load()) {
    Tracked* hot = find_tracked_by_name_prefix(target.c_str(), 0);
    if (hot != nullptr && hot->tid.load() != 0) {
      int index = static_cast<int>(hot - g_tracked);
      jthread t = hot->thread;
      RequestStackTrace(g_jvmti, &t, nullptr, checking_callbacks(), make_user_data(index, 1, ++seq));
      if (deoptimize_ms > 0 && seq >= next_deoptimization) {
        next_deoptimization = seq + deoptimize_ms / 5;
        if (g_jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_SINGLE_STEP, t) == JVMTI_ERROR_NONE) {
          g_deoptimizations++;
          g_jvmti->SetEventNotificationMode(JVMTI_DISABLE, JVMTI_EVENT_SINGLE_STEP, t);
        }
      }
    }
    struct timespec ts = {0, 5'000'000};
    nanosleep(&ts, nullptr);
  }
  g_biased_done.store(true);
}

}  // namespace

void start_biased_sampler(JNIEnv* jni) {
  jclass tc = jni->FindClass("java/lang/Thread");
  jmethodID ctor = jni->GetMethodID(tc, "<init>", "(Ljava/lang/String;)V");
  jobject t = jni->NewObject(tc, ctor, jni->NewStringUTF("biased sampler"));
  g_biased_running.store(true);
  if (g_jvmti->RunAgentThread(t, biased_sampler, nullptr, JVMTI_THREAD_NORM_PRIORITY) != JVMTI_ERROR_NONE) {
    violation("could not start the biased sampler");
  }
}

void stop_biased_sampler() {
  if (!g_biased_running.exchange(false)) return;
  while (!g_biased_done.load()) {
    struct timespec ts = {0, 1'000'000};
    nanosleep(&ts, nullptr);
  }
}

}  // namespace walktest
