// Paces a sampler loop at a fixed number of events per second, shared by the stack-walk test
// agent's sampler (tests/stack_walk/agent/sampler.cpp) and the stack-walk benchmarks
// (bench/stack_walk/). Not signal context.
//
// Deadlines are absolute (CLOCK_MONOTONIC, start + k * tick), so the rate does not drift with the
// time the loop body takes, and a loop that was descheduled catches up at once (clock_nanosleep
// returns immediately for a deadline in the past): the average rate is kept over the run.
//
// clock_nanosleep cannot wake a thread much more often than every ~60 us on this kind of machine
// (timer slack, scheduling), so above 1 / min_tick events per second one tick releases a batch of
// events instead of one: the loop sends them back to back.
#pragma once

#include <time.h>

#include <algorithm>
#include <cstdint>

namespace jvmkit::testing {

class RatePacer {
 public:
  // rate_hz: events per second (values < 1 count as 1). min_tick_ns: the shortest sleep between two
  // wake-ups; 0 wakes once per event. The effective rate is rounded to a whole interval in ns.
  explicit RatePacer(int64_t rate_hz, int64_t min_tick_ns = 0) {
    const int64_t interval_ns = std::max<int64_t>(1, kNsPerSecond / std::max<int64_t>(1, rate_hz));
    per_tick_ = min_tick_ns > interval_ns ? (min_tick_ns + interval_ns - 1) / interval_ns : 1;
    tick_ns_ = per_tick_ * interval_ns;
    clock_gettime(CLOCK_MONOTONIC, &next_);
  }

  // Sleeps until the next tick is due and returns how many events it releases (always >= 1).
  int64_t wait() {
    next_.tv_nsec += tick_ns_;
    while (next_.tv_nsec >= kNsPerSecond) {
      next_.tv_nsec -= kNsPerSecond;
      next_.tv_sec++;
    }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next_, nullptr);
    return per_tick_;
  }

 private:
  static constexpr int64_t kNsPerSecond = 1'000'000'000;
  int64_t per_tick_ = 1;
  int64_t tick_ns_ = 0;
  timespec next_{};
};

}  // namespace jvmkit::testing
