// The sampler: a native thread that sends SIGRTMIN+3 to the tracked threads in turn at a fixed
// total rate, with rt_tgsigqueueinfo so that the signal carries the request's user_data (tracked
// index, sequence number). The handler only calls RequestStackTrace and counts its result.
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstring>

#include "agent.hpp"
#include "base/thread_id.hpp"
#include "tests/support/queue_signal.hpp"
#include "tests/support/rate_pacer.hpp"
#include "tests/support/signal_handler.hpp"

namespace walktest {

namespace {

std::atomic<int64_t> g_send_failed{0};
std::atomic<int64_t> g_sent{0}, g_handled{0}, g_ok{0}, g_error{0}, g_not_available{0};
std::atomic<bool> g_running{false};
pthread_t g_thread;
long g_rate = 1000;
int64_t g_next_seq[kMaxTracked] = {};

int sample_signal() { return SIGRTMIN + 3; }

// user_data of the signals newborn threads send themselves (never a tracked thread's).
void* const kNewbornMarker = reinterpret_cast<void*>(uintptr_t{0x6e6577626f726e});
std::atomic<int64_t> g_newborn_handled{0}, g_newborn_unattached{0};

// The previous signal sample of each tracked thread (written by that thread's own handler only:
// the signal is blocked while its handler runs).
struct Moment {
  uintptr_t pc = 0, sp = 0;
  int64_t cpu_ns = -1;
};
Moment g_last_moment[kMaxTracked];
// A thread that ran less CPU time than this between two samples at the same PC and stack pointer
// did not run in between: the first handler's capture is all it ran (its cost: see the histogram).
constexpr int64_t kRepeatCpuNs = 200'000;
// CPU time between two samples at one PC and stack pointer: < 10, 30, 100, 200, 1000 us, more.
constexpr int64_t kRepeatBucketsUs[] = {10, 30, 100, 200, 1000};
std::atomic<int64_t> g_same_pc_cpu[6] = {}, g_repeats{0};

int64_t thread_cpu_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

// ud, marked when this sample repeats the thread's previous moment.
void* with_repeat_mark(void* ud, void* ucontext) {
  const int index = ud_index(ud);
  if (ud_stream(ud) != 0 || index < 0 || index >= kMaxTracked || ucontext == nullptr) return ud;
  const auto* uc = static_cast<const ucontext_t*>(ucontext);
  const Moment now{static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]),
                   static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]), thread_cpu_ns()};
  Moment& last = g_last_moment[index];
  bool repeat = false;
  if (last.cpu_ns >= 0 && now.pc == last.pc && now.sp == last.sp) {
    const int64_t ran = now.cpu_ns - last.cpu_ns;
    int bucket = 0;
    while (bucket < 5 && ran >= kRepeatBucketsUs[bucket] * 1000) bucket++;
    g_same_pc_cpu[bucket].fetch_add(1, std::memory_order_relaxed);
    repeat = ran < kRepeatCpuNs;
  }
  last = now;
  if (!repeat) return ud;
  g_repeats.fetch_add(1, std::memory_order_relaxed);
  return mark_repeat(ud);
}

void handler(int, siginfo_t* info, void* ucontext) {
  int saved = errno;
  g_handled.fetch_add(1, std::memory_order_relaxed);
  void* ud = info->si_value.sival_ptr;
  if (ud != kNewbornMarker) ud = with_repeat_mark(ud, ucontext);
  jvmtiError err = RequestStackTrace(g_jvmti, nullptr, ucontext, checking_callbacks(), ud);
  if (ud == kNewbornMarker) {
    g_newborn_handled.fetch_add(1, std::memory_order_relaxed);
    if (err == JVMTI_ERROR_UNATTACHED_THREAD) g_newborn_unattached.fetch_add(1, std::memory_order_relaxed);
  }
  if (err == JVMTI_ERROR_NONE) {
    g_ok.fetch_add(1, std::memory_order_relaxed);
  } else if (err == JVMTI_ERROR_NOT_AVAILABLE) {
    g_not_available.fetch_add(1, std::memory_order_relaxed);
  } else {
    g_error.fetch_add(1, std::memory_order_relaxed);
  }
  errno = saved;
}

bool send_sample_signal(pid_t tid, void* user_data) {
  sigval value;
  value.sival_ptr = user_data;
  return jvmkit::testing::queue_signal(tid, sample_signal(), value);
}

// A thread that has never touched libjvm: its first act is to signal itself, so the handler runs
// before the thread's block of libjvm's thread-locals exists.
void* newborn_main(void*) {
  send_sample_signal(jvmkit::current_tid(), kNewbornMarker);
  return nullptr;
}

void* sampler_main(void*) {
  // On 2 shared cores the sampler competes with every busy Java thread; a real-time priority lets
  // it keep the requested rate (it sleeps between signals). Without the privilege it runs as is.
  struct sched_param param;
  param.sched_priority = 1;
  pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
  jvmkit::testing::RatePacer pacer(g_rate);  // one signal per wake-up
  int cursor = 0;
  while (g_running.load()) {
    pacer.wait();
    int n = std::min(g_tracked_count.load(), kMaxTracked);
    for (int tries = 0; tries < n; tries++) {
      int index = cursor++ % n;
      pid_t tid = g_tracked[index].tid.load();
      if (tid == 0) continue;
      if (send_sample_signal(tid, make_user_data(index, 0, ++g_next_seq[index]))) {
        g_sent.fetch_add(1);
      } else {
        g_send_failed.fetch_add(1);
      }
      break;
    }
  }
  return nullptr;
}

}  // namespace

void install_signal_handler() { jvmkit::testing::install_siginfo_handler(sample_signal(), handler); }

void start_sampler(long rate_hz) {
  g_rate = rate_hz > 0 ? rate_hz : 1000;
  g_running.store(true);
  pthread_create(&g_thread, nullptr, sampler_main, nullptr);
}

void stop_sampler() {
  if (!g_running.exchange(false)) return;
  pthread_join(g_thread, nullptr);
  // Signals already queued are handled promptly by running threads; give them a moment.
  struct timespec ts = {0, 50'000'000};
  nanosleep(&ts, nullptr);
}

int64_t sampler_send_failures() { return g_send_failed.load(); }

bool check_newborn_threads(long count) {
  for (long i = 0; i < count; i++) {
    pthread_t thread;
    if (pthread_create(&thread, nullptr, newborn_main, nullptr) != 0) {
      violation("pthread_create failed for newborn thread %ld", i);
      return false;
    }
    pthread_join(thread, nullptr);
  }
  const int64_t handled = g_newborn_handled.load(), unattached = g_newborn_unattached.load();
  std::fprintf(stderr, "  newborn threads %ld: signals handled %lld, refused as unattached %lld\n", count,
               (long long)handled, (long long)unattached);
  if (handled != count || unattached != count) {
    violation("newborn threads: %ld signalled themselves, %lld handled, %lld refused as unattached", count,
              (long long)handled, (long long)unattached);
    return false;
  }
  return true;
}

void print_repeats() {
  std::fprintf(stderr,
               "REPEATS: %lld samples repeated their thread's previous moment (same PC and stack pointer, "
               "< %lld us of CPU time between); CPU time between samples at one PC and stack pointer: "
               "<10 us %lld, <30 us %lld, <100 us %lld, <200 us %lld, <1 ms %lld, more %lld\n",
               (long long)g_repeats.load(), (long long)(kRepeatCpuNs / 1000), (long long)g_same_pc_cpu[0].load(),
               (long long)g_same_pc_cpu[1].load(), (long long)g_same_pc_cpu[2].load(),
               (long long)g_same_pc_cpu[3].load(), (long long)g_same_pc_cpu[4].load(),
               (long long)g_same_pc_cpu[5].load());
}

SamplerTotals sampler_totals() {
  return SamplerTotals{g_sent.load(), g_handled.load(), g_ok.load(), g_error.load(), g_not_available.load()};
}

}  // namespace walktest
