// The clocks jvmkit measures time with. Async-signal-safe (clock_gettime is).
#pragma once

#include <time.h>

#include <cstdint>

#include "base/signal_safe.hpp"

namespace jvmkit {

// Nanoseconds of CLOCK (CLOCK_MONOTONIC, CLOCK_REALTIME, a CPU-time clock, ...); 0 if it fails.
JVMKIT_SIGNAL_SAFE inline int64_t clock_ns(clockid_t clock) noexcept {
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) return 0;
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Nanoseconds of CLOCK_MONOTONIC: for intervals and deadlines.
JVMKIT_SIGNAL_SAFE inline int64_t monotonic_ns() noexcept { return clock_ns(CLOCK_MONOTONIC); }

}  // namespace jvmkit
