// The calling thread's kernel thread id (what /proc/<pid>/task, tgkill and perf_event_open name).
// Async-signal-safe: one system call, or none once cached (cached_current_tid).
#pragma once

#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/signal_safe.hpp"

namespace jvmkit {

JVMKIT_SIGNAL_SAFE inline pid_t current_tid() noexcept { return static_cast<pid_t>(::syscall(SYS_gettid)); }

// The same, remembered after the thread's first call: a system call costs ~1 us on a VM like this
// project's, a few per cent of a whole sample. initial-exec, so that reaching it is one
// %fs-relative load (the default model's __tls_get_addr may allocate, which a signal handler must
// not); it takes 4 bytes of the static TLS surplus glibc keeps for dlopen'ed libraries (each
// library that calls it has its own copy). A thread's copy starts at 0 and ends with the thread,
// so a recycled tid is never confused with its previous owner. (A child of fork keeps its parent
// thread's copy: code that samples in a forked child must call current_tid.)
JVMKIT_SIGNAL_SAFE inline pid_t cached_current_tid() noexcept {
  static thread_local pid_t tid __attribute__((tls_model("initial-exec"))) = 0;
  if (tid == 0) tid = current_tid();  // a nested signal may store the same value first: harmless
  return tid;
}

}  // namespace jvmkit
