// Installs a three-argument (SA_SIGINFO) handler for one signal, restarting interrupted system
// calls, with no other signal blocked while it runs: the way every sampler of the tests and
// benchmarks takes its signal. Shared by the stack-walk test agent (sampler and probes) and the
// stack-walk benchmarks.
#pragma once

#include <signal.h>

namespace jvmkit::testing {

using SiginfoHandler = void (*)(int, siginfo_t*, void*);

// False when sigaction refused (a signal that cannot be caught).
inline bool install_siginfo_handler(int sig, SiginfoHandler handler) {
  struct sigaction sa {};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  return sigaction(sig, &sa, nullptr) == 0;
}

}  // namespace jvmkit::testing
