#include "stack_walk/counters.hpp"

namespace jvmkit::walk {

Counters& counters() noexcept {
  // Constant-initialised: usable from a signal handler before anything else ran.
  static constinit Counters instance;
  return instance;
}

void Counters::snapshot(jvmkitStackWalkCounters* out) const noexcept {
  // Read the outcome totals before accepted: a request accepted meanwhile then shows up as pending,
  // never as an outcome without its acceptance.
  out->pending = pending.load(std::memory_order_seq_cst);
  out->delivered = delivered.load(std::memory_order_relaxed);
  out->failed = failed.load(std::memory_order_relaxed);
  out->unbiased = unbiased.load(std::memory_order_relaxed);
  out->truncated = truncated.load(std::memory_order_relaxed);
  out->captured_at_call = captured_at_call.load(std::memory_order_relaxed);
  out->served_later = served_later.load(std::memory_order_relaxed);
  out->virtual_threads = virtual_threads.load(std::memory_order_relaxed);
  out->virtual_unnamed = virtual_unnamed.load(std::memory_order_relaxed);
  out->virtual_completed = virtual_completed.load(std::memory_order_relaxed);
  out->virtual_frozen = virtual_frozen.load(std::memory_order_relaxed);
  for (int i = 0; i < JVMKIT_FAILURE_REASON_COUNT; i++) {
    out->failed_by_reason[i] = failed_by_reason[i].load(std::memory_order_relaxed);
  }
  out->accepted = accepted.load(std::memory_order_seq_cst);
  out->rejected = rejected.load(std::memory_order_relaxed);
  for (int i = 0; i < JVMKIT_REJECT_REASON_COUNT; i++) {
    out->rejected_by_reason[i] = rejected_by_reason[i].load(std::memory_order_relaxed);
  }
}

}  // namespace jvmkit::walk
