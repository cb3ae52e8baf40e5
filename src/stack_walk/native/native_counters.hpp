// The accounting behind JvmkitGetNativeCounters: requests and runs (counted in signal context, plain
// atomics) and the tables (counted by the watcher after each preparation). Totals live for the
// whole process, as the stack-walk counters do.
#pragma once

#include <jvmkit/stack_walk_native.h>

#include <atomic>
#include <cstdint>

#include "base/signal_safe.hpp"
#include "stack_walk/signal/x64/native_unwind.hpp"

namespace jvmkit::walk {

struct NativeCounters {
  std::atomic<int64_t> requests{0};
  std::atomic<int64_t> native_only{0};
  std::atomic<int64_t> frames_delivered{0};
  std::atomic<int64_t> runs{0};
  std::atomic<int64_t> ended_at_java{0};
  std::atomic<int64_t> ended_outermost{0};
  std::atomic<int64_t> ended_by_reason[JVMKIT_NATIVE_END_REASON_COUNT]{};
  // The current tables (set by the watcher), and the preparation time in all.
  std::atomic<int64_t> objects_prepared{0};
  std::atomic<int64_t> objects_failed{0};
  std::atomic<int64_t> unwind_rows{0};
  std::atomic<int64_t> prepare_ns{0};

  JVMKIT_SIGNAL_SAFE void count_request(bool only_native) noexcept {
    requests.fetch_add(1, std::memory_order_relaxed);
    if (only_native) native_only.fetch_add(1, std::memory_order_relaxed);
  }
  // A run's end as captured (delivery may still turn a join into a mismatch: count_join_mismatch).
  JVMKIT_SIGNAL_SAFE void count_run(NativeRunEnd end) noexcept;
  JVMKIT_SIGNAL_SAFE void count_marker(jvmkitNativeEnd end) noexcept {
    ended_by_reason[end].fetch_add(1, std::memory_order_relaxed);
  }

  void snapshot(jvmkitNativeCounters* out) const noexcept;
};

JVMKIT_SIGNAL_SAFE NativeCounters& native_counters() noexcept;

// The API's reason for a run that did not reach Java code or the thread's first frame.
JVMKIT_SIGNAL_SAFE jvmkitNativeEnd api_end(NativeRunEnd end) noexcept;

}  // namespace jvmkit::walk
