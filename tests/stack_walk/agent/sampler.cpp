// The sampler: a native thread that sends SIGRTMIN+3 to the tracked threads in turn at a fixed
// total rate, with rt_tgsigqueueinfo so that the signal carries the request's user_data (tracked
// index, sequence number). The handler only calls RequestStackTrace and counts its result.
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
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

void handler(int, siginfo_t* info, void* ucontext) {
  int saved = errno;
  g_handled.fetch_add(1, std::memory_order_relaxed);
  void* ud = info->si_value.sival_ptr;
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

SamplerTotals sampler_totals() {
  return SamplerTotals{g_sent.load(), g_handled.load(), g_ok.load(), g_error.load(), g_not_available.load()};
}

}  // namespace walktest
