// JVM benchmark agent: samples the "worker-*" threads of jvmkit.test.walk.Workers with SIGRTMIN+3
// at a fixed rate and measures, in the handler, the time RequestStackTrace takes (the capture:
// gate, slot, AsyncGetCallTrace, publish, wake-up). At VMDeath it prints the capture-time
// percentiles, the mean stack depth, and the CPU time of jvmkit's delivery thread per delivered
// trace (with trivial callbacks).
// Options: rate=<Hz total> (default 2000); compare (also time bare AsyncGetCallTrace on the same
// signal, i.e. the same stack, alternating which of the two runs first); native (a session with
// native frames, jvmkit/stack_walk_native.h: each signal makes both a RequestStackTrace and a
// JvmkitRequestStackTraceNative request, alternating which runs first, and both are timed: the
// difference is the cost of the native frames, reported per native frame delivered);
// threads=PREFIX (sample the threads whose name starts with PREFIX; default worker-).
#include <dlfcn.h>
#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <jvmkit/stack_walk.h>
#include <jvmkit/stack_walk_native.h>

#include "base/thread_id.hpp"
#include "bench/stack_walk/bench_agent.hpp"
#include "bench/stack_walk/walker_thread.hpp"
#include "tests/support/rate_pacer.hpp"

namespace {

jvmtiEnv* g_jvmti = nullptr;
using jvmkit::bench::g_worker_tids;
using jvmkit::bench::kMaxWorkers;
std::atomic<bool> g_running{false};
pthread_t g_sampler;
long g_rate = 2000;

// Capture times in 100 ns buckets up to 1 ms, then one overflow bucket: wall time (includes being
// descheduled on a busy machine) and the thread's CPU time.
constexpr int kBuckets = 10001;
std::atomic<int64_t> g_hist[kBuckets];
std::atomic<int64_t> g_cpu_hist[kBuckets];
using jvmkit::bench::g_frames;
// compare: bare AsyncGetCallTrace into a per-thread buffer, timed like the capture.
bool g_compare = false;
JavaVM* g_vm = nullptr;
struct AsgctFrame {
  jint lineno;
  jmethodID method_id;
};
struct AsgctTrace {
  JNIEnv* env;
  jint num_frames;
  AsgctFrame* frames;
};
using Asgct = void (*)(AsgctTrace*, jint, void*);
Asgct g_asgct = nullptr;
AsgctFrame g_bare_frames[kMaxWorkers][1024];
std::atomic<int64_t> g_bare_hist[kBuckets];
std::atomic<int64_t> g_bare_cpu_hist[kBuckets];
std::atomic<int64_t> g_bare_frames_total{0}, g_bare_ok{0};
std::atomic<int64_t> g_order{0};

int64_t now_ns(clockid_t clock = CLOCK_MONOTONIC) {
  timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

void record(std::atomic<int64_t>* hist, std::atomic<int64_t>* cpu_hist, int64_t wall_ns, int64_t cpu_ns) {
  hist[std::min<int64_t>(wall_ns / 100, kBuckets - 1)].fetch_add(1, std::memory_order_relaxed);
  cpu_hist[std::min<int64_t>(cpu_ns / 100, kBuckets - 1)].fetch_add(1, std::memory_order_relaxed);
}

// native: the native requests' capture times, and the native frames their traces delivered.
bool g_native = false;
std::atomic<int64_t> g_native_hist[kBuckets];
std::atomic<int64_t> g_native_cpu_hist[kBuckets];
std::atomic<int64_t> g_native_frames{0}, g_native_traces{0};

jint JNICALL count_native_frame(const jvmkitNativeFrame* frame, void*) {
  if (frame->kind != JVMKIT_FRAME_MARKER) g_native_frames.fetch_add(1, std::memory_order_relaxed);
  return JVMKIT_FRAME_CONTINUE;
}
void JNICALL count_native_begin(jthread, jboolean, void*) { g_native_traces.fetch_add(1, std::memory_order_relaxed); }

void timed_native_capture(void* uc) {
  jvmtiStackTraceCallbacks cb = jvmkit::bench::counting_callbacks();
  cb.beginStackTrace = count_native_begin;
  jvmkitNativeRequest native{};
  native.size = sizeof(native);
  native.nativeFrame = count_native_frame;
  int64_t cpu_start = now_ns(CLOCK_THREAD_CPUTIME_ID);
  int64_t start = now_ns();
  JvmkitRequestStackTraceNative(g_jvmti, nullptr, uc, cb, &native, nullptr);
  int64_t wall = now_ns() - start;
  record(g_native_hist, g_native_cpu_hist, wall, now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_start);
}

void timed_capture(void* uc) {
  jvmtiStackTraceCallbacks cb = jvmkit::bench::counting_callbacks();
  int64_t cpu_start = now_ns(CLOCK_THREAD_CPUTIME_ID);
  int64_t start = now_ns();
  RequestStackTrace(g_jvmti, nullptr, uc, cb, nullptr);
  int64_t wall = now_ns() - start;
  record(g_hist, g_cpu_hist, wall, now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_start);
}

void timed_bare(void* uc, int slot) {
  JNIEnv* jni = nullptr;
  g_vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6);
  AsgctTrace trace{jni, 0, g_bare_frames[slot]};
  int64_t cpu_start = now_ns(CLOCK_THREAD_CPUTIME_ID);
  int64_t start = now_ns();
  g_asgct(&trace, 1024, uc);
  int64_t wall = now_ns() - start;
  record(g_bare_hist, g_bare_cpu_hist, wall, now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_start);
  if (trace.num_frames > 0) {
    g_bare_ok.fetch_add(1, std::memory_order_relaxed);
    g_bare_frames_total.fetch_add(trace.num_frames, std::memory_order_relaxed);
  }
}

void handler(int, siginfo_t*, void* uc) {
  int saved = errno;
  int slot = -1;
  if (g_compare && g_asgct != nullptr) {
    pid_t self = jvmkit::current_tid();
    for (int i = 0; i < kMaxWorkers; i++) {
      if (g_worker_tids[i].load(std::memory_order_relaxed) == self) slot = i;
    }
  }
  if (g_native) {
    const bool native_first = g_order.fetch_add(1, std::memory_order_relaxed) & 1;
    if (native_first) timed_native_capture(uc);
    timed_capture(uc);
    if (!native_first) timed_native_capture(uc);
  } else if (slot < 0) {
    timed_capture(uc);
  } else if (g_order.fetch_add(1, std::memory_order_relaxed) & 1) {
    timed_capture(uc);
    timed_bare(uc, slot);
  } else {
    timed_bare(uc, slot);
    timed_capture(uc);
  }
  errno = saved;
}

void* sampler(void*) {
  jvmkit::testing::RatePacer pacer(g_rate);  // one signal per wake-up
  int cursor = 0;
  while (g_running.load()) {
    pacer.wait();
    int n = jvmkit::bench::worker_count();
    if (n == 0) continue;
    pid_t tid = g_worker_tids[cursor++ % n].load();
    if (tid != 0) syscall(SYS_tgkill, getpid(), tid, SIGRTMIN + 3);
  }
  return nullptr;
}

void JNICALL on_vm_init(jvmtiEnv*, JNIEnv*, jthread) {
  g_running.store(true);
  pthread_create(&g_sampler, nullptr, sampler, nullptr);
}

double percentile_us(const std::atomic<int64_t>* hist, double p, int64_t total) {
  int64_t target = static_cast<int64_t>(p * total);
  int64_t seen = 0;
  for (int i = 0; i < kBuckets; i++) {
    seen += hist[i].load();
    if (seen > target) return (i + 1) / 10.0;  // bucket upper bound, microseconds
  }
  return kBuckets / 10.0;
}

void JNICALL on_vm_death(jvmtiEnv* jvmti, JNIEnv*) {
  g_running.store(false);
  pthread_join(g_sampler, nullptr);
  double cpu_ms = jvmkit::bench::delivery_thread_cpu_ns() / 1e6;
  DisableRequestStackTrace(jvmti);
  jvmkitStackWalkCounters c;
  JvmkitGetStackWalkCounters(&c);
  int64_t total = 0;
  for (auto& b : g_hist) total += b.load();
  std::printf(
      "capture (RequestStackTrace in the handler), wall: n=%lld p50=%.1f us p90=%.1f us p99=%.1f us p99.9=%.1f us\n"
      "capture, thread CPU time (incl. ~0.3 us clock read): p50=%.1f us p90=%.1f us p99=%.1f us p99.9=%.1f us\n"
      "accepted %lld delivered %lld failed %lld rejected %lld; mean depth %.1f frames\n"
      "delivery thread CPU: %.0f ms, %.1f us per delivered trace\n",
      (long long)total, percentile_us(g_hist, 0.5, total), percentile_us(g_hist, 0.9, total),
      percentile_us(g_hist, 0.99, total), percentile_us(g_hist, 0.999, total), percentile_us(g_cpu_hist, 0.5, total),
      percentile_us(g_cpu_hist, 0.9, total), percentile_us(g_cpu_hist, 0.99, total),
      percentile_us(g_cpu_hist, 0.999, total), (long long)c.accepted, (long long)c.delivered, (long long)c.failed,
      (long long)c.rejected, c.delivered ? double(g_frames.load()) / c.delivered : 0.0, cpu_ms,
      c.delivered ? 1000.0 * cpu_ms / c.delivered : 0.0);
  if (g_native) {
    int64_t native_total = 0;
    for (auto& b : g_native_hist) native_total += b.load();
    const double frames = g_native_traces.load() ? double(g_native_frames.load()) / g_native_traces.load() : 0.0;
    const double extra_p50 =
        percentile_us(g_native_cpu_hist, 0.5, native_total) - percentile_us(g_cpu_hist, 0.5, total);
    std::printf(
        "native capture (JvmkitRequestStackTraceNative, same signals): n=%lld, %.1f native frames per trace\n"
        "  wall p50=%.1f us p90=%.1f us p99=%.1f us; thread CPU p50=%.1f us p90=%.1f us p99=%.1f us\n"
        "  native frames cost (thread CPU p50, native - plain): %.2f us per sample, %.0f ns per native frame\n",
        (long long)native_total, frames, percentile_us(g_native_hist, 0.5, native_total),
        percentile_us(g_native_hist, 0.9, native_total), percentile_us(g_native_hist, 0.99, native_total),
        percentile_us(g_native_cpu_hist, 0.5, native_total), percentile_us(g_native_cpu_hist, 0.9, native_total),
        percentile_us(g_native_cpu_hist, 0.99, native_total), extra_p50,
        frames > 0 ? 1000.0 * extra_p50 / frames : 0.0);
  }
  if (g_compare) {
    int64_t bare_total = 0;
    for (auto& b : g_bare_hist) bare_total += b.load();
    std::printf(
        "bare AsyncGetCallTrace, same signals: n=%lld ok=%lld mean depth %.1f\n"
        "  wall p50=%.1f us p99=%.1f us; thread CPU p50=%.1f us p99=%.1f us\n"
        "ratio capture/bare (thread CPU): p50 %.2f, p99 %.2f\n",
        (long long)bare_total, (long long)g_bare_ok.load(),
        g_bare_ok.load() ? double(g_bare_frames_total.load()) / g_bare_ok.load() : 0.0,
        percentile_us(g_bare_hist, 0.5, bare_total), percentile_us(g_bare_hist, 0.99, bare_total),
        percentile_us(g_bare_cpu_hist, 0.5, bare_total), percentile_us(g_bare_cpu_hist, 0.99, bare_total),
        percentile_us(g_cpu_hist, 0.5, total) / percentile_us(g_bare_cpu_hist, 0.5, bare_total),
        percentile_us(g_cpu_hist, 0.99, total) / percentile_us(g_bare_cpu_hist, 0.99, bare_total));
  }
  std::fflush(stdout);
}

}  // namespace

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
  std::string opts = options ? options : "";
  size_t rate_at = opts.find("rate=");
  if (rate_at != std::string::npos) g_rate = std::max(1L, std::strtol(opts.c_str() + rate_at + 5, nullptr, 10));
  g_compare = opts.find("compare") != std::string::npos;
  g_native = opts.find("native") != std::string::npos;
  size_t threads_at = opts.find("threads=");
  if (threads_at != std::string::npos) {
    const std::string prefix = opts.substr(threads_at + 8, opts.find(',', threads_at) - threads_at - 8);
    std::snprintf(jvmkit::bench::g_thread_prefix, sizeof(jvmkit::bench::g_thread_prefix), "%s", prefix.c_str());
  }
  if (g_native && JvmkitSetNativeFrames(JVMKIT_NATIVE_ON | JVMKIT_NATIVE_WAIT) != JVMTI_ERROR_NONE) return JNI_ERR;
  g_vm = vm;
  g_asgct = reinterpret_cast<Asgct>(dlsym(RTLD_DEFAULT, "AsyncGetCallTrace"));
  return jvmkit::bench::setup_agent(vm, &g_jvmti, on_vm_init, on_vm_death, SIGRTMIN + 3, handler);
}
