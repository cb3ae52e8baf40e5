// SIGNAL CONTEXT. Everything in sampling_handler() runs inside a signal handler on an arbitrary
// interrupted thread, possibly inside malloc or holding a VM lock. Allowed: reading the globals set
// before the handler was installed, relaxed atomic increments and CAS on fixed tables, the
// initial-exec thread-local t_tid and syscall(SYS_gettid), RequestStackTrace (async-signal-safe
// for the current thread). Forbidden: anything that allocates, locks, or calls JNI/JVMTI.
#include "profiler/signal_sampler.hpp"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace jvmkit::prof {
namespace {

// Set once, before the handler is installed; read-only afterwards.
jvmtiEnv* g_env = nullptr;
jvmtiStackTraceCallbacks g_callbacks{};

bool g_count_only = false;  // JVMKIT_PROF_NO_WALK=1: measure the cost of the signals alone
std::atomic<bool> g_active{false};
std::atomic<int64_t> g_signals{0};
std::atomic<int64_t> g_requested{0};
std::atomic<int64_t> g_accepted{0};
std::atomic<int64_t> g_not_java{0};
std::atomic<int64_t> g_dropped{0};
std::atomic<int64_t> g_overflowed{0};
// Threads whose samples RequestStackTrace refused as non-Java (GC, JIT... threads), so that the wall
// engine stops signalling them. A fixed table of slots claimed with CAS: bounded, lock-free.
constexpr int kNonJavaSlots = 512;
std::atomic<pid_t> g_non_java[kNonJavaSlots];

void remember_non_java(pid_t tid) {
  for (int i = 0; i < kNonJavaSlots; i++) {
    pid_t seen = g_non_java[i].load(std::memory_order_relaxed);
    if (seen == tid) return;
    if (seen == 0) {
      pid_t expected = 0;
      if (g_non_java[i].compare_exchange_strong(expected, tid, std::memory_order_relaxed) || expected == tid) return;
    }
  }
}

static_assert(std::atomic<int64_t>::is_always_lock_free, "counters must be lock-free to be signal-safe");

// The thread's OS id, remembered after its first sample: gettid is a system call, and a system
// call costs ~1 us on a VM like this project's, a few per cent of a whole sample. initial-exec, so
// that reaching it is one %fs-relative load (the default model's __tls_get_addr may allocate, which
// a signal handler must not); it takes 4 bytes of the static TLS surplus glibc keeps for dlopen'ed
// libraries, as src/concurrent/epoch_domain.cpp does. A thread's copy starts at 0 and ends with the
// thread, so a recycled tid is never confused with its previous owner.
thread_local pid_t t_tid __attribute__((tls_model("initial-exec"))) = 0;

pid_t current_tid() {
  pid_t tid = t_tid;
  if (tid == 0) {
    tid = static_cast<pid_t>(syscall(SYS_gettid));
    t_tid = tid;  // a nested signal may store the same value first: harmless
  }
  return tid;
}

void sampling_handler(int /*sig*/, siginfo_t* /*info*/, void* ucontext) {
  if (!g_active.load(std::memory_order_acquire)) return;
  int saved_errno = errno;
  g_signals.fetch_add(1, std::memory_order_relaxed);
  if (g_count_only) {
    errno = saved_errno;
    return;
  }
  // user_data carries the OS thread id: the delivery side names the thread by it.
  pid_t tid = current_tid();
  void* user_data = reinterpret_cast<void*>(static_cast<intptr_t>(tid));
  g_requested.fetch_add(1, std::memory_order_relaxed);
  jvmtiError err = RequestStackTrace(g_env, nullptr, ucontext, g_callbacks, user_data);
  if (err == JVMTI_ERROR_NONE) {
    g_accepted.fetch_add(1, std::memory_order_relaxed);
  } else if (err == JVMTI_ERROR_UNATTACHED_THREAD) {
    g_not_java.fetch_add(1, std::memory_order_relaxed);
    remember_non_java(tid);
  } else {
    g_dropped.fetch_add(1, std::memory_order_relaxed);
  }
  errno = saved_errno;
}

// A perf event's overflow signal (F_SETSIG) that the kernel cannot queue, because the user's
// pending-signal limit (RLIMIT_SIGPENDING, shared by every process of the user) is reached, is
// replaced by a plain SIGIO, whose default action kills the JVM. The sample is lost; the process
// must not be.
void overflow_handler(int /*sig*/, siginfo_t* info, void* /*ucontext*/) {
  if (info != nullptr && info->si_code == SI_KERNEL) g_overflowed.fetch_add(1, std::memory_order_relaxed);
}

// Catches SIGIO when nobody else handles it (SIG_DFL: the program does not use SIGIO, or it would
// have been killed by it). A handler of the program's own is left alone.
void guard_sigio() {
  struct sigaction old;
  if (sigaction(SIGIO, nullptr, &old) != 0) return;
  if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) return;
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = overflow_handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGIO, &sa, nullptr);
}

}  // namespace

Error install_sampling_handler(int signal, jvmtiEnv* env, const jvmtiStackTraceCallbacks& callbacks) {
  struct sigaction old;
  if (sigaction(signal, nullptr, &old) != 0) {
    return Error("signal=" + std::to_string(signal) + ": " + strerror(errno));
  }
  // A handler of someone else's (SIG_DFL and SIG_IGN are free; ours is from an earlier install).
  bool taken = (old.sa_flags & SA_SIGINFO) != 0 ? (old.sa_sigaction != nullptr && old.sa_sigaction != sampling_handler)
                                                : (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN);
  if (taken) {
    return Error("signal=" + std::to_string(signal) +
                 ": the signal already has a handler (another agent or the JVM uses it); choose another one with "
                 "signal=N, e.g. a real-time signal " +
                 std::to_string(SIGRTMIN) + ".." + std::to_string(SIGRTMAX));
  }
  g_env = env;
  g_callbacks = callbacks;
  const char* no_walk = getenv("JVMKIT_PROF_NO_WALK");
  g_count_only = no_walk != nullptr && no_walk[0] == '1';
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = sampling_handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(signal, &sa, nullptr) != 0) {
    return Error("signal=" + std::to_string(signal) + ": cannot install the handler: " + strerror(errno));
  }
  if (signal != SIGIO) guard_sigio();
  return Error::ok();
}

void set_sampling_active(bool active) { g_active.store(active, std::memory_order_release); }

bool is_known_non_java_thread(pid_t tid) {
  for (int i = 0; i < kNonJavaSlots; i++) {
    pid_t seen = g_non_java[i].load(std::memory_order_relaxed);
    if (seen == tid) return true;
    if (seen == 0) return false;
  }
  return false;
}

void read_signal_counts(SampleCounts* counts) {
  counts->signals += g_signals.load();
  counts->requested += g_requested.load();
  counts->accepted += g_accepted.load();
  counts->not_java += g_not_java.load();
  counts->dropped += g_dropped.load();
  counts->overflowed += g_overflowed.load();
}

}  // namespace jvmkit::prof
