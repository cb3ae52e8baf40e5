// JVM benchmark agent: how many traces per second jvmkit's delivery thread delivers, and the
// highest request rate the stack walker sustains without drops.
//
// A sampler thread sends SIGRTMIN+3 to the "worker-*" threads (jvmkit.test.walk.DepthMain: a
// fixed stack depth) with rt_tgsigqueueinfo, the worker's index in the signal's value; the handler
// calls RequestStackTrace with trivial callbacks (they count frames). Class pinning is part of
// Every delivery: deliverer.cpp pins each frame's declaring class before beginStackTrace.
//
// Modes (option mode=):
//   flood  after warm-up, for `seconds`, the sampler keeps `inflight` unhandled signals queued on
//          every worker (topped up every 0.1 ms): each worker handles its queue back to back, so
//          requests come as fast as the workers can make them. Reports the counters, delivered
//          traces per second of wall time, and the delivery thread's CPU time per trace, i.e. the
//          traces per second it delivers on one core.
//   steps  offers each rate of `rates` (requests per second over all workers) for `step_ms`, waits
//          for every request to have its outcome, prints one line per step, then the highest rate
//          sustained without drops.
// Options: mode=flood|steps, warmup_ms=1500, seconds=5, inflight=32,
//          rates=2000:5000:10000:20000:50000:70000:100000:200000, step_ms=3000.
#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <jvmkit/stack_walk.h>

#include "bench/stack_walk/bench_agent.hpp"
#include "bench/stack_walk/walker_thread.hpp"
#include "tests/support/queue_signal.hpp"
#include "tests/support/rate_pacer.hpp"

namespace {

using jvmkit::bench::g_worker_tids;
using jvmkit::bench::kMaxWorkers;
using jvmkit::bench::worker_count;
// The shortest sampler sleep: above 5,000 requests/s a wake-up sends a batch (rate_pacer.hpp).
constexpr int64_t kMinTickNs = 200'000;
constexpr int64_t kDrainTimeoutNs = 10'000'000'000;
// Flood: the sampler's sleep between two top-up rounds (short against a queue of `inflight`).
constexpr int64_t kFloodRoundNs = 100'000;

jvmtiEnv* g_jvmti = nullptr;
std::atomic<int64_t> g_sent[kMaxWorkers];
std::atomic<int64_t> g_handled[kMaxWorkers];
std::atomic<int64_t> g_send_failed{0};
using jvmkit::bench::g_frames;
std::atomic<bool> g_running{false};
pthread_t g_sampler;

struct Options {
  std::string mode = "flood";
  int64_t warmup_ms = 1500;
  int64_t seconds = 5;
  int64_t inflight = 32;
  std::vector<int64_t> rates = {2000, 5000, 10000, 20000, 50000, 70000, 100000, 200000};
  int64_t step_ms = 3000;
} g_options;

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

void sleep_ns(int64_t ns) {
  timespec ts = {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  nanosleep(&ts, nullptr);
}

// Signal context: RequestStackTrace and atomics only.
void handler(int, siginfo_t* info, void* uc) {
  int saved = errno;
  jvmtiStackTraceCallbacks cb = jvmkit::bench::counting_callbacks();
  RequestStackTrace(g_jvmti, nullptr, uc, cb, nullptr);
  int worker = info->si_value.sival_int;
  if (worker >= 0 && worker < kMaxWorkers) g_handled[worker].fetch_add(1, std::memory_order_release);
  errno = saved;
}

int sample_signal() { return SIGRTMIN + 3; }

// Sends one request signal to worker I; false when it has ended or the signal queue is full.
bool signal_worker(int i) {
  pid_t tid = g_worker_tids[i].load(std::memory_order_acquire);
  if (tid == 0) return false;
  sigval value;
  value.sival_int = i;
  g_sent[i].fetch_add(1, std::memory_order_relaxed);  // before the send: the handler may run first
  if (jvmkit::testing::queue_signal(tid, sample_signal(), value)) return true;
  g_sent[i].fetch_sub(1, std::memory_order_relaxed);
  g_send_failed.fetch_add(1, std::memory_order_relaxed);
  return false;
}

int64_t total(const std::atomic<int64_t>* per_worker) {
  int64_t sum = 0;
  for (int i = 0; i < kMaxWorkers; i++) sum += per_worker[i].load();
  return sum;
}

// Everything one phase is judged on, read at its start and again once it has drained.
struct Snapshot {
  jvmkitStackWalkCounters counters;
  int64_t wall_ns, delivery_cpu_ns, delivery_wait_ns, sent, handled, send_failed, frames;
};

Snapshot snapshot(pid_t delivery_tid) {
  Snapshot s;
  JvmkitGetStackWalkCounters(&s.counters);
  s.wall_ns = now_ns();
  jvmkit::bench::SchedStat sched = jvmkit::bench::thread_schedstat(delivery_tid);
  s.delivery_cpu_ns = sched.cpu_ns;
  s.delivery_wait_ns = sched.wait_ns;
  s.sent = total(g_sent);
  s.handled = total(g_handled);
  s.send_failed = g_send_failed.load();
  s.frames = g_frames.load();
  return s;
}

// Waits until every signal sent was handled and every accepted request had its outcome, so that
// a phase's counters hold all of its requests and none of the next one's.
void drain() {
  int64_t deadline = now_ns() + kDrainTimeoutNs;
  jvmkitStackWalkCounters c;
  for (;;) {
    JvmkitGetStackWalkCounters(&c);
    if ((total(g_handled) >= total(g_sent) && c.pending == 0) || now_ns() > deadline) return;
    sleep_ns(1'000'000);
  }
}

// Failures the JVM decides (AsyncGetCallTrace's own results): not drops.
bool is_jvm_failure(int reason) {
  return reason == JVMKIT_FAILURE_NO_JAVA_FRAMES || reason == JVMKIT_FAILURE_NOT_WALKABLE ||
         reason == JVMKIT_FAILURE_GC_ACTIVE || reason == JVMKIT_FAILURE_DEOPTIMIZING;
}

struct Delta {
  double seconds, delivery_cpu_s, delivery_wait_s, mean_depth;
  int64_t sent, send_failed, accepted, delivered, failed, jvm_failed, rejected;
  std::string failed_by, rejected_by;
};

Delta delta(const Snapshot& a, const Snapshot& b) {
  Delta d;
  d.seconds = (b.wall_ns - a.wall_ns) / 1e9;
  d.delivery_cpu_s = (b.delivery_cpu_ns - a.delivery_cpu_ns) / 1e9;
  d.delivery_wait_s = (b.delivery_wait_ns - a.delivery_wait_ns) / 1e9;
  d.sent = b.sent - a.sent;
  d.send_failed = b.send_failed - a.send_failed;
  d.accepted = b.counters.accepted - a.counters.accepted;
  d.delivered = b.counters.delivered - a.counters.delivered;
  d.failed = b.counters.failed - a.counters.failed;
  d.rejected = b.counters.rejected - a.counters.rejected;
  d.mean_depth = d.delivered ? double(b.frames - a.frames) / d.delivered : 0;
  d.jvm_failed = 0;
  for (int r = 0; r < JVMKIT_FAILURE_REASON_COUNT; r++) {
    int64_t n = b.counters.failed_by_reason[r] - a.counters.failed_by_reason[r];
    if (n == 0) continue;
    if (is_jvm_failure(r)) d.jvm_failed += n;
    d.failed_by +=
        std::string(" ") + JvmkitFailureReasonName(static_cast<jvmkitFailureReason>(r)) + "=" + std::to_string(n);
  }
  for (int r = 0; r < JVMKIT_REJECT_REASON_COUNT; r++) {
    int64_t n = b.counters.rejected_by_reason[r] - a.counters.rejected_by_reason[r];
    if (n != 0) {
      d.rejected_by +=
          std::string(" ") + JvmkitRejectReasonName(static_cast<jvmkitRejectReason>(r)) + "=" + std::to_string(n);
    }
  }
  return d;
}

void print_counters(const Delta& d) {
  std::printf(
      "  signals sent %lld (queue full %lld); accepted %lld delivered %lld failed %lld [%s ] rejected %lld [%s ]; "
      "delivery thread waited %.0f ms for a CPU\n",
      (long long)d.sent, (long long)d.send_failed, (long long)d.accepted, (long long)d.delivered, (long long)d.failed,
      d.failed_by.c_str(), (long long)d.rejected, d.rejected_by.c_str(), 1e3 * d.delivery_wait_s);
}

// As the test sampler does: a real-time priority lets the sampler keep its rate on 2 busy shared
// cores. It never spins: it sleeps between rounds. Without the privilege it runs as is.
void raise_sampler_priority() {
  sched_param param;
  param.sched_priority = 1;
  pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
}

void run_flood(pid_t delivery_tid) {
  raise_sampler_priority();
  const int n = worker_count();
  Snapshot a = snapshot(delivery_tid);
  const int64_t end = a.wall_ns + g_options.seconds * 1'000'000'000;
  while (g_running.load(std::memory_order_relaxed) && now_ns() < end) {
    // Tops every worker up to `inflight` unhandled signals: the kernel queues them, and each worker
    // handles its queue back to back whenever it runs, so requests come as fast as it can make them.
    for (int i = 0; i < n; i++) {
      int64_t missing = g_options.inflight - (g_sent[i].load() - g_handled[i].load(std::memory_order_acquire));
      while (missing-- > 0 && signal_worker(i)) {
      }
    }
    sleep_ns(kFloodRoundNs);
  }
  const int64_t flood_end = now_ns();
  drain();
  Delta d = delta(a, snapshot(delivery_tid));
  std::printf("flood: %d workers, %.1f frames per trace, %.2f s of requests (+%.3f s to drain), load average %s\n", n,
              d.mean_depth, (flood_end - a.wall_ns) / 1e9, d.seconds - (flood_end - a.wall_ns) / 1e9,
              jvmkit::bench::load_average().c_str());
  print_counters(d);
  std::printf(
      "  requests accepted %.0f/s, delivered %.0f traces/s (wall); delivery thread CPU %.3f s (%.0f%% of the wall "
      "time) = %.2f us per trace => %.0f traces/s on one core\n",
      d.accepted / d.seconds, d.delivered / d.seconds, d.delivery_cpu_s, 100 * d.delivery_cpu_s / d.seconds,
      d.delivered ? 1e6 * d.delivery_cpu_s / d.delivered : 0.0,
      d.delivery_cpu_s > 0 ? d.delivered / d.delivery_cpu_s : 0.0);
}

// A step drops requests when a signal could not be queued, or a request was rejected or failed for
// a reason of ours; it was offered when the sampler sent >= 95% of its rate (on a loaded machine the
// sampler itself may fall behind; such a step proves nothing either way).
bool dropped(const Delta& d) { return d.send_failed != 0 || d.rejected != 0 || d.failed != d.jvm_failed; }
bool offered(const Delta& d, int64_t rate, double step_s) { return d.sent >= 0.95 * rate * step_s; }

void run_steps(pid_t delivery_tid) {
  raise_sampler_priority();
  const int n = worker_count();
  int64_t best = 0;
  bool any_drop = false;
  std::printf("steps: %d workers, %lld ms each, load average %s\n", n, (long long)g_options.step_ms,
              jvmkit::bench::load_average().c_str());
  int cursor = 0;
  for (int64_t rate : g_options.rates) {
    if (!g_running.load()) break;
    Snapshot a = snapshot(delivery_tid);
    const int64_t end = a.wall_ns + g_options.step_ms * 1'000'000;
    jvmkit::testing::RatePacer pacer(rate, kMinTickNs);
    while (g_running.load(std::memory_order_relaxed) && now_ns() < end) {
      for (int64_t k = pacer.wait(); k > 0; k--) signal_worker(cursor++ % n);
    }
    drain();
    Delta d = delta(a, snapshot(delivery_tid));
    const double step_s = g_options.step_ms / 1e3;
    const bool drop = dropped(d), full = offered(d, rate, step_s);
    std::printf(
        "step %lld/s: offered %.0f/s, delivered %.0f/s; %.1f frames; delivery CPU %.2f us/trace (%.0f%% busy); "
        "load %s -> %s\n",
        (long long)rate, d.sent / step_s, d.delivered / step_s, d.mean_depth,
        d.delivered ? 1e6 * d.delivery_cpu_s / d.delivered : 0.0, 100 * d.delivery_cpu_s / d.seconds,
        jvmkit::bench::load_average().c_str(),
        drop ? "DROPS" : (full ? "sustained, no drops" : "no drops, but the sampler fell behind"));
    print_counters(d);
    std::fflush(stdout);
    any_drop |= drop;
    if (!any_drop && full) best = rate;
  }
  std::printf("highest rate sustained without drops (no drops at any lower step): %lld requests/s\n", (long long)best);
}

void* sampler_main(void*) {
  sleep_ns(g_options.warmup_ms * 1'000'000);
  pid_t delivery_tid = jvmkit::bench::find_delivery_thread();
  if (delivery_tid == 0 || worker_count() == 0) {
    std::printf("delivery bench: no delivery thread or no worker-* thread found\n");
    return nullptr;
  }
  if (g_options.mode == "steps") {
    run_steps(delivery_tid);
  } else {
    run_flood(delivery_tid);
  }
  std::fflush(stdout);
  return nullptr;
}

void JNICALL on_vm_init(jvmtiEnv*, JNIEnv*, jthread) {
  g_running.store(true);
  pthread_create(&g_sampler, nullptr, sampler_main, nullptr);
}

void JNICALL on_vm_death(jvmtiEnv* jvmti, JNIEnv*) {
  g_running.store(false);
  pthread_join(g_sampler, nullptr);
  DisableRequestStackTrace(jvmti);
}

std::string option(const std::string& opts, const char* key, const char* fallback) {
  std::string k = std::string(key) + "=";
  size_t at = opts.find(k);
  if (at == std::string::npos) return fallback;
  size_t end = opts.find(',', at);
  return opts.substr(at + k.size(), end == std::string::npos ? std::string::npos : end - at - k.size());
}

void parse_options(const char* options) {
  std::string opts = options ? options : "";
  g_options.mode = option(opts, "mode", "flood");
  g_options.warmup_ms = std::atoll(option(opts, "warmup_ms", "1500").c_str());
  g_options.seconds = std::max(1LL, std::atoll(option(opts, "seconds", "5").c_str()));
  g_options.inflight = std::max(1LL, std::atoll(option(opts, "inflight", "32").c_str()));
  g_options.step_ms = std::max(100LL, std::atoll(option(opts, "step_ms", "3000").c_str()));
  std::string rates = option(opts, "rates", "");
  if (!rates.empty()) {
    g_options.rates.clear();
    for (size_t at = 0; at != std::string::npos && at < rates.size();) {
      size_t colon = rates.find(':', at);
      g_options.rates.push_back(std::max(1LL, std::atoll(rates.substr(at, colon - at).c_str())));
      at = colon == std::string::npos ? colon : colon + 1;
    }
  }
}

}  // namespace

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
  parse_options(options);
  return jvmkit::bench::setup_agent(vm, &g_jvmti, on_vm_init, on_vm_death, sample_signal(), handler);
}
