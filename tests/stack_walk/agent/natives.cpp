// JNI entry points of jvmkit.test.walk.Agent (the Java programs load this agent library a second
// time with System.loadLibrary to reach them): Enable/Disable in the live phase, and the
// Enable/Disable cycles.
#include <malloc.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "agent.hpp"

namespace walktest {
int64_t agent_thread_starts();
}

using namespace walktest;

namespace {

bool g_sampler_started = false;

long proc_status_value(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  size_t n = std::strlen(key);
  while (std::getline(in, line)) {
    if (line.compare(0, n, key) == 0 && line.size() > n && line[n] == ':') return std::stol(line.substr(n + 1));
  }
  return -1;
}

jint JNICALL count_global_root(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo*, jlong, jlong, jlong, jlong*,
                               jlong*, jint, void* user_data) {
  if (kind == JVMTI_HEAP_REFERENCE_JNI_GLOBAL) ++*static_cast<long*>(user_data);
  return 0;  // do not follow: only the roots are counted
}

long count_jni_global_refs() {
  jvmtiHeapCallbacks cb;
  std::memset(&cb, 0, sizeof(cb));
  cb.heap_reference_callback = count_global_root;
  long count = 0;
  if (g_jvmti->FollowReferences(0, nullptr, nullptr, &cb, &count) != JVMTI_ERROR_NONE) return -1;
  return count;
}

// Bytes in use in the C heap (arena and mmap'd chunks): a leaked request pool (16 MB) shows here.
long malloc_in_use_kb() {
  struct mallinfo2 mi = mallinfo2();
  return static_cast<long>((mi.uordblks + mi.hblkhd) / 1024);
}

void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1'000'000};
  nanosleep(&ts, nullptr);
}

}  // namespace

extern "C" {

JNIEXPORT jint JNICALL Java_jvmkit_test_walk_Agent_enable(JNIEnv*, jclass) {
  jvmtiError err = EnableRequestStackTrace(g_jvmti);
  if (err == JVMTI_ERROR_NONE && !g_sampler_started) {
    g_sampler_started = true;
    start_sampler(option_long("rate", 10000));
  }
  return err;
}

JNIEXPORT jint JNICALL Java_jvmkit_test_walk_Agent_disable(JNIEnv*, jclass) {
  stop_sampler();
  g_sampler_started = false;
  jvmtiError err = DisableRequestStackTrace(g_jvmti);
  check_accounting("after live Disable", true);
  return err;
}

JNIEXPORT jlong JNICALL Java_jvmkit_test_walk_Agent_agentThreadStarts(JNIEnv*, jclass) { return agent_thread_starts(); }

JNIEXPORT jint JNICALL Java_jvmkit_test_walk_Agent_violations(JNIEnv*, jclass) { return violations(); }

// mode=depth: traces of a stack of FRAMES frames delivered so far (see depth_traces).
JNIEXPORT jlong JNICALL Java_jvmkit_test_walk_Agent_depthTraces(JNIEnv*, jclass, jint frames, jboolean biased) {
  return depth_traces(frames, biased ? 1 : 0);
}

// The least number of moments (samples that did not repeat their thread's previous one) over the
// tracked threads named check_prefix* (default worker-): what programs that run until each thread
// was sampled enough ask.
JNIEXPORT jlong JNICALL Java_jvmkit_test_walk_Agent_fewestMoments(JNIEnv*, jclass) {
  return fewest_moments(option("check_prefix", "worker-").c_str());
}

// mode=unload: samples of code in classes that unload so far, delivered as Payload frames or
// failed as class_unloaded (the sum the unload check asks for): what TortureMain runs on until.
JNIEXPORT jlong JNICALL Java_jvmkit_test_walk_Agent_unloadingSamples(JNIEnv*, jclass) {
  jvmkitStackWalkCounters c{};
  JvmkitGetStackWalkCounters(&c);
  return payload_frames() + c.failed_by_reason[JVMKIT_FAILURE_CLASS_UNLOADED];
}

// An agent option as a number (FALLBACK when it is not given), for programs that run until the
// agent has seen what its options ask for.
JNIEXPORT jlong JNICALL Java_jvmkit_test_walk_Agent_optionLong(JNIEnv* jni, jclass, jstring key_string,
                                                               jlong fallback) {
  const char* key = jni->GetStringUTFChars(key_string, nullptr);
  const long value = option_long(key, fallback);
  jni->ReleaseStringUTFChars(key_string, key);
  return value;
}

// Checks that every tracked thread whose name starts with prefix got at least min traces, each for
// the right thread (identity is checked in every beginStackTrace).
JNIEXPORT jboolean JNICALL Java_jvmkit_test_walk_Agent_checkThreads(JNIEnv* jni, jclass, jstring prefix_string,
                                                                    jint min) {
  const char* prefix = jni->GetStringUTFChars(prefix_string, nullptr);
  bool ok = check_threads(prefix, min);
  jni->ReleaseStringUTFChars(prefix_string, prefix);
  return ok && seen().identity_mismatches == 0;
}

// Enable/Disable cycled under sampling. Every Disable must leave pending == 0 with the
// callbacks' own counts equal to the counters; afterwards no thread, JNI global reference or
// memory may have leaked.
JNIEXPORT jboolean JNICALL Java_jvmkit_test_walk_Agent_cycles(JNIEnv*, jclass, jint cycles, jint window_ms) {
  start_sampler(option_long("rate", 10000));
  // One warm-up cycle: first-use allocations (class data, JIT) are not leaks.
  EnableRequestStackTrace(g_jvmti);
  sleep_ms(window_ms);
  DisableRequestStackTrace(g_jvmti);
  sleep_ms(100);
  long threads_before = proc_status_value("Threads");
  long refs_before = count_jni_global_refs();
  long heap_before = malloc_in_use_kb();
  bool ok = true;
  for (int i = 0; i < cycles && ok; i++) {
    jvmtiError e = EnableRequestStackTrace(g_jvmti);
    if (e != JVMTI_ERROR_NONE) {
      violation("cycle %d: Enable returned %d", i, e);
      ok = false;
    }
    sleep_ms(window_ms);
    // Disable under load: the sampler keeps firing while this runs.
    e = DisableRequestStackTrace(g_jvmti);
    if (e != JVMTI_ERROR_NONE) {
      violation("cycle %d: Disable returned %d", i, e);
      ok = false;
    }
    jvmkitStackWalkCounters c;
    JvmkitGetStackWalkCounters(&c);
    Seen s = seen();
    if (c.pending != 0 || c.accepted != c.delivered + c.failed || c.delivered != s.begins || c.failed != s.failures ||
        s.begins != s.ends) {
      violation("cycle %d: accounting broken after Disable", i);
      ok = false;
    }
  }
  stop_sampler();
  sleep_ms(300);  // agent threads finish exiting
  long threads_after = proc_status_value("Threads");
  long refs_after = count_jni_global_refs();
  long heap_after = malloc_in_use_kb();
  SamplerTotals t = sampler_totals();
  std::fprintf(
      stderr,
      "CYCLES: %d cycles of %d ms; threads %ld -> %ld; JNI global refs %ld -> %ld; malloc in use %ld kB -> %ld kB; "
      "signals %lld, accepted %lld\n",
      cycles, window_ms, threads_before, threads_after, refs_before, refs_after, heap_before, heap_after,
      (long long)t.sent, (long long)t.returned_ok);
  check_accounting("after cycles", true);
  if (threads_after > threads_before) violation("threads leaked: %ld -> %ld", threads_before, threads_after);
  if (refs_before < 0 || refs_after > refs_before)
    violation("JNI global refs leaked: %ld -> %ld", refs_before, refs_after);
  // A leaked request pool would be >= 16 MB per cycle (1.6 GB in all); the JVM's own C heap use
  // moves by a few MB meanwhile (JIT, class data).
  if (heap_after - heap_before > 32 * 1024) violation("C heap in use grew by %ld kB", heap_after - heap_before);
  if (t.returned_ok < cycles * 10) violation("too few requests accepted during the cycles");
  return ok && violations() == 0;
}

}  // extern "C"
