// The calling thread's kernel thread id (what /proc/<pid>/task, tgkill and perf_event_open name).
// Async-signal-safe: one system call. Code that needs it per sample caches it per thread.
#pragma once

#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/signal_safe.hpp"

namespace jvmkit {

JVMKIT_SIGNAL_SAFE inline pid_t current_tid() noexcept { return static_cast<pid_t>(::syscall(SYS_gettid)); }

}  // namespace jvmkit
