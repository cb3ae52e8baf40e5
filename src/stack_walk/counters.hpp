// The accounting behind JvmkitGetStackWalkCounters. Plain atomics: the accept and reject paths run
// in signal context. Totals live for the whole process (they survive Disable/Enable cycles).
//
// Invariant: pending is incremented when a request is accepted (before it is published) and
// decremented only after its one outcome has been reported, so at any quiescent moment
// accepted == delivered + failed + pending, and pending is never negative.
#pragma once

#include <atomic>
#include <cstdint>

#include "base/signal_safe.hpp"
#include "stack_walk/failure.hpp"

namespace jvmkit::walk {

struct Counters {
  std::atomic<int64_t> accepted{0};
  std::atomic<int64_t> delivered{0};
  std::atomic<int64_t> failed{0};
  std::atomic<int64_t> pending{0};
  std::atomic<int64_t> unbiased{0};
  std::atomic<int64_t> failed_by_reason[JVMKIT_FAILURE_REASON_COUNT]{};
  std::atomic<int64_t> rejected{0};
  std::atomic<int64_t> rejected_by_reason[JVMKIT_REJECT_REASON_COUNT]{};
  std::atomic<int64_t> truncated{0};  // delivered traces cut at the depth limit
  std::atomic<int64_t> captured_at_call{0};
  std::atomic<int64_t> served_later{0};
  std::atomic<int64_t> virtual_threads{0};    // delivered traces of mounted virtual threads
  std::atomic<int64_t> virtual_unnamed{0};    // ... reported for the carrier: the virtual thread was not found
  std::atomic<int64_t> virtual_completed{0};  // ... whose frozen frames came from its stack at delivery
  std::atomic<int64_t> virtual_frozen{0};     // captures that read a virtual thread's frozen frames

  JVMKIT_SIGNAL_SAFE void count_accepted() noexcept {
    accepted.fetch_add(1, std::memory_order_relaxed);
    pending.fetch_add(1, std::memory_order_seq_cst);
  }
  JVMKIT_SIGNAL_SAFE void count_rejected(jvmkitRejectReason reason) noexcept {
    rejected_by_reason[reason].fetch_add(1, std::memory_order_relaxed);
    rejected.fetch_add(1, std::memory_order_relaxed);
  }
  JVMKIT_SIGNAL_SAFE void count_delivered(bool biased, bool was_truncated) noexcept {
    if (!biased) unbiased.fetch_add(1, std::memory_order_relaxed);
    if (was_truncated) truncated.fetch_add(1, std::memory_order_relaxed);
    delivered.fetch_add(1, std::memory_order_relaxed);
    pending.fetch_sub(1, std::memory_order_seq_cst);
  }
  // A current-thread request without a ucontext, captured at the call or left for the delivery thread.
  JVMKIT_SIGNAL_SAFE void count_at_call() noexcept { captured_at_call.fetch_add(1, std::memory_order_relaxed); }
  JVMKIT_SIGNAL_SAFE void count_served_later() noexcept { served_later.fetch_add(1, std::memory_order_relaxed); }
  // A delivered trace of a mounted virtual thread; NAMED: reported for the virtual thread itself.
  void count_virtual(bool named) noexcept {
    virtual_threads.fetch_add(1, std::memory_order_relaxed);
    if (!named) virtual_unnamed.fetch_add(1, std::memory_order_relaxed);
  }
  void count_virtual_completed() noexcept { virtual_completed.fetch_add(1, std::memory_order_relaxed); }
  JVMKIT_SIGNAL_SAFE void count_virtual_frozen() noexcept { virtual_frozen.fetch_add(1, std::memory_order_relaxed); }
  JVMKIT_SIGNAL_SAFE void count_failed(jvmkitFailureReason reason) noexcept {
    failed_by_reason[reason].fetch_add(1, std::memory_order_relaxed);
    failed.fetch_add(1, std::memory_order_relaxed);
    pending.fetch_sub(1, std::memory_order_seq_cst);
  }

  void snapshot(jvmkitStackWalkCounters* out) const noexcept;
};

JVMKIT_SIGNAL_SAFE Counters& counters() noexcept;

}  // namespace jvmkit::walk
