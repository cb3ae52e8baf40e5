// The wall-clock sampler: a plain pthread ("native sampler") that, every interval, lists the
// process's threads (/proc/self/task) and sends each one SIGRTMIN+3 with tgkill, leaving out itself
// and jvmkit's own threads (the stack-walk delivery thread and the "jvmkit native" watcher). Java
// threads, HotSpot's own threads and the launcher's threads are all signalled: the library decides
// which requests it accepts.
//
// The handler runs in signal context: it calls JvmkitRequestStackTraceNative and counts the result
// in lock-free atomics, nothing else (no allocation, no lock, no TLS of this dlopened library).
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include "native_agent.hpp"
#include "tests/support/signal_handler.hpp"

namespace nativetest {

namespace {

// Not one HotSpot uses (it takes SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGUSR2, SIGQUIT and, for JFR's
// CPU-time sampler, SIGPROF); install_signal_handler checks that nobody holds it.
int sample_signal() { return SIGRTMIN + 3; }

std::atomic<int64_t> g_rounds{0}, g_sent{0}, g_handled{0}, g_accepted{0}, g_other_errors{0};
std::atomic<int64_t> g_by_error[3] = {};
std::atomic<int64_t> g_next_seq{1};
std::atomic<uint8_t> g_accepted_seq[kMaxSequence] = {};
// Room for the requests of a delivery that falls far behind a flood of signals (a loaded host:
// 141,000 signals in 8 s, delivered more than 65,536 requests late, once lost every sample's time).
// Only the pages used are touched.
constexpr int64_t kPcRing = 1 << 20;
std::atomic<uintptr_t> g_pcs[kPcRing] = {};
std::atomic<int64_t> g_times[kPcRing] = {};      // CLOCK_MONOTONIC ns of each request's handler
std::atomic<int64_t> g_ring_seqs[kPcRing] = {};  // whose entries g_pcs and g_times hold
std::atomic<bool> g_running{false};
pthread_t g_thread;
long g_interval_us = 1000;

void count_result(jvmtiError err, int64_t seq) {
  switch (err) {
    case JVMTI_ERROR_NONE:
      g_accepted.fetch_add(1, std::memory_order_relaxed);
      if (seq < kMaxSequence) g_accepted_seq[seq].store(1, std::memory_order_relaxed);
      break;
    case JVMTI_ERROR_NOT_AVAILABLE:  // before jvmkit's own VMInit set-up, or after Disable
      g_by_error[0].fetch_add(1, std::memory_order_relaxed);
      break;
    case JVMTI_ERROR_UNATTACHED_THREAD:  // threads HotSpot does not know (the launcher's)
      g_by_error[1].fetch_add(1, std::memory_order_relaxed);
      break;
    case JVMTI_ERROR_OUT_OF_MEMORY:  // the request pool is full: delivery is behind
      g_by_error[2].fetch_add(1, std::memory_order_relaxed);
      break;
    default:
      g_other_errors.fetch_add(1, std::memory_order_relaxed);
  }
}

void handler(int, siginfo_t*, void* ucontext) {
  const int saved = errno;
  g_handled.fetch_add(1, std::memory_order_relaxed);
  const pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
  const int64_t seq = g_next_seq.fetch_add(1, std::memory_order_relaxed);
  const auto* uc = static_cast<const ucontext_t*>(ucontext);
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
  g_pcs[seq & (kPcRing - 1)].store(static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]), std::memory_order_relaxed);
  g_times[seq & (kPcRing - 1)].store(now.tv_sec * int64_t{1'000'000'000} + now.tv_nsec, std::memory_order_relaxed);
  g_ring_seqs[seq & (kPcRing - 1)].store(seq, std::memory_order_release);
  const jvmkitNativeRequest native{sizeof(jvmkitNativeRequest), native_frame_callback(), nullptr, 0};
  count_result(JvmkitRequestStackTraceNative(g_jvmti, nullptr, ucontext, checking_callbacks(), &native,
                                             make_user_data(tid, seq)),
               seq);
  errno = saved;
}

std::string comm_of(pid_t tid) {
  char path[64], name[32] = {};
  std::snprintf(path, sizeof(path), "/proc/self/task/%d/comm", static_cast<int>(tid));
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  const ssize_t n = read(fd, name, sizeof(name) - 1);
  close(fd);
  if (n > 0 && name[n - 1] == '\n') name[n - 1] = '\0';
  return name;
}

// jvmkit's own threads run no code worth sampling, and the delivery thread must not feed itself.
// A thread HotSpot starts is called "java" until it takes its own name, so that name is read again
// each round; other names are kept.
bool is_left_out(pid_t tid, std::unordered_map<pid_t, std::string>& names) {
  auto it = names.find(tid);
  if (it == names.end() || it->second == "java" || it->second.empty()) {
    it = names.insert_or_assign(tid, comm_of(tid)).first;
  }
  return it->second.rfind("jvmkit", 0) == 0;
}

void signal_every_thread(pid_t self, std::unordered_map<pid_t, std::string>& names) {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return;
  const pid_t pid = getpid();
  while (const dirent* entry = readdir(dir)) {
    const pid_t tid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (tid <= 0 || tid == self || is_left_out(tid, names)) continue;
    // ESRCH: the thread ended since the listing.
    if (syscall(SYS_tgkill, pid, tid, sample_signal()) == 0) g_sent.fetch_add(1, std::memory_order_relaxed);
  }
  closedir(dir);
  g_rounds.fetch_add(1, std::memory_order_relaxed);
}

void advance(struct timespec* t, long us) {
  t->tv_nsec += us * 1000;
  while (t->tv_nsec >= 1'000'000'000) {
    t->tv_nsec -= 1'000'000'000;
    t->tv_sec++;
  }
}

void* sampler_main(void*) {
  pthread_setname_np(pthread_self(), "native sampler");
  // On 2 shared cores the sampler competes with every busy thread; a real-time priority keeps its
  // rhythm (it sleeps between rounds). Without the privilege it runs as is.
  struct sched_param param;
  param.sched_priority = 1;
  pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
  const pid_t self = static_cast<pid_t>(syscall(SYS_gettid));
  std::unordered_map<pid_t, std::string> names;
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  while (g_running.load()) {
    advance(&next, g_interval_us);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    // Behind (descheduled): no burst of rounds to catch up, the rhythm restarts from now.
    if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec)) next = now;
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
    signal_every_thread(self, names);
  }
  return nullptr;
}

}  // namespace

bool install_signal_handler() {
  struct sigaction current {};
  if (sigaction(sample_signal(), nullptr, &current) != 0 || current.sa_handler != SIG_DFL) {
    std::fprintf(stderr, "native_agent: signal %d is taken already\n", sample_signal());
    return false;
  }
  return jvmkit::testing::install_siginfo_handler(sample_signal(), handler);
}

void start_sampler(long interval_us) {
  g_interval_us = interval_us > 0 ? interval_us : 1000;
  g_running.store(true);
  if (pthread_create(&g_thread, nullptr, sampler_main, nullptr) != 0) {
    g_running.store(false);
    fail("could not start the sampler thread");
  }
}

void stop_sampler() {
  if (!g_running.exchange(false)) return;
  pthread_join(g_thread, nullptr);
  // Signals already sent are handled as soon as their threads run; give them that moment.
  struct timespec pause = {0, 100'000'000};
  nanosleep(&pause, nullptr);
}

bool sequence_accepted(int64_t seq) {
  return seq >= 0 && seq < kMaxSequence && g_accepted_seq[seq].load(std::memory_order_relaxed) != 0;
}

uintptr_t sampled_pc(int64_t seq) { return g_pcs[seq & (kPcRing - 1)].load(std::memory_order_relaxed); }

int64_t sampled_time_ns(int64_t seq) {
  const int64_t slot = seq & (kPcRing - 1);
  if (g_ring_seqs[slot].load(std::memory_order_acquire) != seq) return -1;
  const int64_t time = g_times[slot].load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  return g_ring_seqs[slot].load(std::memory_order_relaxed) == seq ? time : -1;  // not overwritten meanwhile
}

SamplerTotals sampler_totals() {
  SamplerTotals t;
  t.rounds = g_rounds.load();
  t.sent = g_sent.load();
  t.handled = g_handled.load();
  t.accepted = g_accepted.load();
  for (int i = 0; i < 3; i++) t.by_error[i] = g_by_error[i].load();
  t.other_errors = g_other_errors.load();
  return t;
}

}  // namespace nativetest
