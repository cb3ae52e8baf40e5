// What the stack-walk benchmark agents (capture_bench_agent, delivery_bench_agent) share: the
// tids of the "worker-*" threads they sample, and the Agent_OnLoad setup (their own events, the
// sampling signal's handler, EnableRequestStackTrace). Not signal context, except where marked.
#pragma once

#include <jni.h>
#include <jvmti.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>

#include <jvmkit/stack_walk.h>

#include "base/thread_id.hpp"
#include "tests/support/signal_handler.hpp"

namespace jvmkit::bench {

constexpr int kMaxWorkers = 64;
// tids of the live worker threads, by start order; 0 once a worker has ended. Read by the sampler
// and (async-signal-safe atomics) by signal handlers.
inline std::atomic<pid_t> g_worker_tids[kMaxWorkers];
inline std::atomic<int> g_worker_count{0};
// The name prefix of the threads sampled ("worker-": jvmkit.test.walk.DepthMain's and Workers').
inline char g_thread_prefix[32] = "worker-";

inline int worker_count() { return std::min(g_worker_count.load(), kMaxWorkers); }

inline void JNICALL on_worker_start(jvmtiEnv* jvmti, JNIEnv*, jthread thread) {
  jvmtiThreadInfo info;
  std::memset(&info, 0, sizeof(info));
  if (jvmti->GetThreadInfo(thread, &info) != JVMTI_ERROR_NONE || info.name == nullptr) return;
  if (std::strncmp(info.name, g_thread_prefix, std::strlen(g_thread_prefix)) == 0) {
    int i = g_worker_count.fetch_add(1);
    if (i < kMaxWorkers) g_worker_tids[i].store(jvmkit::current_tid());
  }
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(info.name));
}

inline void JNICALL on_worker_end(jvmtiEnv*, JNIEnv*, jthread) {
  pid_t self = jvmkit::current_tid();
  for (auto& t : g_worker_tids) {
    pid_t expected = self;
    t.compare_exchange_strong(expected, 0);
  }
}

// Frames delivered so far, counted by the trivial callbacks below (on the delivery thread).
inline std::atomic<int64_t> g_frames{0};

inline void JNICALL count_begin(jthread, jboolean, void*) {}
inline void JNICALL count_end(jthread, void*) {}
inline jint JNICALL count_frame(jvmtiFrameType, jmethodID, jlocation, void*) {
  g_frames.fetch_add(1, std::memory_order_relaxed);
  return JVMKIT_FRAME_CONTINUE;
}
inline void JNICALL count_failure(jthread, void*) {}

// Trivial callbacks: the benchmarks measure jvmkit's own delivery cost, not a client's.
inline jvmtiStackTraceCallbacks counting_callbacks() {
  return jvmtiStackTraceCallbacks{count_begin, count_end, count_frame, count_failure};
}

using SignalHandler = void (*)(int, siginfo_t*, void*);

// Agent_OnLoad of a benchmark agent: creates its jvmtiEnv (*jvmti), enables VMInit/VMDeath with
// the given callbacks and the worker tracking above, installs HANDLER for SIGNAL, and enables the
// stack walker. Returns JNI_OK, or JNI_ERR when any of it failed.
inline jint setup_agent(JavaVM* vm, jvmtiEnv** jvmti, jvmtiEventVMInit vm_init, jvmtiEventVMDeath vm_death, int signal,
                        SignalHandler handler) {
  if (vm->GetEnv(reinterpret_cast<void**>(jvmti), JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  jvmtiEventCallbacks cb;
  std::memset(&cb, 0, sizeof(cb));
  cb.VMInit = vm_init;
  cb.VMDeath = vm_death;
  cb.ThreadStart = on_worker_start;
  cb.ThreadEnd = on_worker_end;
  (*jvmti)->SetEventCallbacks(&cb, sizeof(cb));
  for (jvmtiEvent e : {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END}) {
    (*jvmti)->SetEventNotificationMode(JVMTI_ENABLE, e, nullptr);
  }
  if (!testing::install_siginfo_handler(signal, handler)) return JNI_ERR;
  JvmkitSetJavaVM(vm);
  return EnableRequestStackTrace(*jvmti) == JVMTI_ERROR_NONE ? JNI_OK : JNI_ERR;
}

}  // namespace jvmkit::bench
