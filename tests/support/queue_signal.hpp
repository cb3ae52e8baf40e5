// Sends signal SIG with a value to one thread of this process (rt_tgsigqueueinfo, as sigqueue
// does for a process), so that the handler's siginfo carries VALUE. Shared by the stack-walk test
// agent's sampler (tests/stack_walk/agent/sampler.cpp) and the stack-walk benchmarks
// (bench/stack_walk/). Async-signal-safe.
#pragma once

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

namespace jvmkit::testing {

// False when the thread has ended or the user's queue of pending signals is full.
inline bool queue_signal(pid_t tid, int sig, sigval value) {
  siginfo_t info;
  std::memset(&info, 0, sizeof(info));
  info.si_signo = sig;
  info.si_code = SI_QUEUE;
  info.si_pid = getpid();
  info.si_uid = getuid();
  info.si_value = value;
  return syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, sig, &info) == 0;
}

}  // namespace jvmkit::testing
