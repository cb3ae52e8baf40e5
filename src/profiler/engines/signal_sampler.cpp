// SIGNAL CONTEXT. Everything in sampling_handler() runs inside a signal handler on an arbitrary
// interrupted thread, possibly inside malloc or holding a VM lock. Allowed: reading the fields of
// g_sampler set before the handler was installed (or, for `native`, before sampling was activated),
// relaxed atomic increments and CAS on fixed tables, jvmkit::cached_current_tid() (an
// initial-exec thread-local), the thread's context (context_agent.hpp), RequestStackTrace and
// JvmkitRequestStackTraceNative (async-signal-safe for the current thread). Forbidden: anything that allocates, locks,
// or calls JNI/JVMTI.
#include "profiler/engines/signal_sampler.hpp"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "base/signal_safe.hpp"
#include "base/thread_id.hpp"
#include "profiler/context/context_agent.hpp"
#include "profiler/engines/kernel_chains.hpp"

namespace jvmkit::prof {
namespace {

// Threads whose samples RequestStackTrace refused as non-Java (GC, JIT... threads), so that the wall
// engine stops signalling them: a fixed table of slots claimed with CAS, bounded and lock-free.
constexpr int kNonJavaSlots = 512;

// Everything the handler reads or counts, in one object. constinit: it is ready before any code
// runs, so a signal can never find it half-constructed.
struct SamplerState {
  // Set once, before the handler is installed; read-only afterwards.
  jvmtiEnv* env = nullptr;
  jvmtiStackTraceCallbacks callbacks{};
  jvmtiStackTraceCallbacks native_callbacks{};
  jvmkitNativeRequest native_request{};
  bool count_only = false;  // JVMKIT_PROF_NO_WALK=1: measure the cost of the signals alone

  std::atomic<bool> active{false};
  // cstack=native: set while inactive, published by the release store that activates sampling.
  std::atomic<bool> native{false};
  std::atomic<bool> kernel{false};  // ... with kernel call chains from the perf event's ring
  std::atomic<int64_t> signals{0};
  std::atomic<int64_t> requested{0};
  std::atomic<int64_t> accepted{0};
  std::atomic<int64_t> not_java{0};
  std::atomic<int64_t> dropped{0};
  std::atomic<int64_t> overflowed{0};
  std::atomic<pid_t> non_java[kNonJavaSlots]{};
};

constinit SamplerState g_sampler;

static_assert(std::atomic<int64_t>::is_always_lock_free, "counters must be lock-free to be signal-safe");

JVMKIT_SIGNAL_SAFE void remember_non_java(pid_t tid) {
  for (std::atomic<pid_t>& slot : g_sampler.non_java) {
    pid_t seen = slot.load(std::memory_order_relaxed);
    if (seen == tid) return;
    if (seen == 0) {
      pid_t expected = 0;
      if (slot.compare_exchange_strong(expected, tid, std::memory_order_relaxed) || expected == tid) return;
    }
  }
}

JVMKIT_SIGNAL_SAFE void sampling_handler(int /*sig*/, siginfo_t* /*info*/, void* ucontext) {
  SamplerState& s = g_sampler;
  if (!s.active.load(std::memory_order_acquire)) return;
  int saved_errno = errno;
  s.signals.fetch_add(1, std::memory_order_relaxed);
  if (s.count_only) {
    errno = saved_errno;
    return;
  }
  // user_data carries the OS thread id: the delivery side names the thread by it; and the thread's
  // request context (labels, trace and span) of this moment, if it has one.
  pid_t tid = jvmkit::cached_current_tid();
  const uint32_t context = put_current_context(tid);
  void* user_data = sample_user_data(tid, context);
  s.requested.fetch_add(1, std::memory_order_relaxed);
  // Native frames: the same request with the native part (HotSpot's own threads are accepted too).
  jvmtiError err;
  if (s.native.load(std::memory_order_relaxed)) {
    jvmkitNativeRequest request = s.native_request;
    jlong kernel_pcs[JVMKIT_MAX_KERNEL_FRAMES];
    if (s.kernel.load(std::memory_order_relaxed)) {
      request.kernel_pcs = kernel_pcs;
      request.kernel_count = take_kernel_chain(tid, ucontext, kernel_pcs, JVMKIT_MAX_KERNEL_FRAMES);
    }
    err = JvmkitRequestStackTraceNative(s.env, nullptr, ucontext, s.native_callbacks, &request, user_data);
  } else {
    err = RequestStackTrace(s.env, nullptr, ucontext, s.callbacks, user_data);
  }
  if (err != JVMTI_ERROR_NONE) take_sample_context(context);  // refused: no callback will take it
  if (err == JVMTI_ERROR_NONE) {
    s.accepted.fetch_add(1, std::memory_order_relaxed);
  } else if (err == JVMTI_ERROR_UNATTACHED_THREAD) {
    s.not_java.fetch_add(1, std::memory_order_relaxed);
    remember_non_java(tid);
  } else {
    s.dropped.fetch_add(1, std::memory_order_relaxed);
  }
  errno = saved_errno;
}

// A perf event's overflow signal (F_SETSIG) that the kernel cannot queue, because the user's
// pending-signal limit (RLIMIT_SIGPENDING, shared by every process of the user) is reached, is
// replaced by a plain SIGIO, whose default action kills the JVM. The sample is lost; the process
// must not be.
JVMKIT_SIGNAL_SAFE void overflow_handler(int /*sig*/, siginfo_t* info, void* /*ucontext*/) {
  if (info != nullptr && info->si_code == SI_KERNEL) g_sampler.overflowed.fetch_add(1, std::memory_order_relaxed);
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

Error install_sampling_handler(int signal, jvmtiEnv* env, const jvmtiStackTraceCallbacks& callbacks,
                               const jvmtiStackTraceCallbacks& native_callbacks,
                               jvmkitNativeFrameCallback native_frame) {
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
  g_sampler.env = env;
  g_sampler.callbacks = callbacks;
  g_sampler.native_callbacks = native_callbacks;
  g_sampler.native_request = jvmkitNativeRequest{sizeof(jvmkitNativeRequest), native_frame, nullptr, 0};
  const char* no_walk = getenv("JVMKIT_PROF_NO_WALK");
  g_sampler.count_only = no_walk != nullptr && no_walk[0] == '1';
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

void set_sampling_active(bool active) { g_sampler.active.store(active, std::memory_order_release); }

void set_native_requests(bool native, bool kernel) {
  g_sampler.native.store(native, std::memory_order_relaxed);
  g_sampler.kernel.store(native && kernel, std::memory_order_relaxed);
}

bool is_known_non_java_thread(pid_t tid) {
  for (const std::atomic<pid_t>& slot : g_sampler.non_java) {
    pid_t seen = slot.load(std::memory_order_relaxed);
    if (seen == tid) return true;
    if (seen == 0) return false;
  }
  return false;
}

void read_signal_counts(SampleCounts* counts) {
  const SamplerState& s = g_sampler;
  counts->signals += s.signals.load();
  counts->requested += s.requested.load();
  counts->accepted += s.accepted.load();
  counts->not_java += s.not_java.load();
  counts->dropped += s.dropped.load();
  counts->overflowed += s.overflowed.load();
}

}  // namespace jvmkit::prof
