// Recovery of samples AsyncGetCallTrace cannot place (SIGNAL CONTEXT, see recovery.cpp).
#pragma once

#include <jvmkit/stack_walk.h>

#include <atomic>
#include <cstdint>

#include "base/signal_safe.hpp"
#include "hotspot/asgct.hpp"
#include "stack_walk/code_map.hpp"
#include "stack_walk/completeness.hpp"
#include "stack_walk/signal/x64/completeness.hpp"
#include "stack_walk/signal/x64/native_text.hpp"
#include "stack_walk/signal/x64/physical_walk.hpp"

namespace jvmkit::walk {

// Totals behind JvmkitGetRecoveryCounters (process-wide, like the stack-walk counters).
struct RecoveryCounters {
  std::atomic<int64_t> attempted{0};
  std::atomic<int64_t> recovered[JVMKIT_RECOVERY_KIND_COUNT]{};
  std::atomic<int64_t> unrecovered[JVMKIT_UNRECOVERED_REASON_COUNT]{};
  // ASGCT's first answer by code (index -code, 0..-hotspot::asgct::kLowestCode; the last: anything else),
  // for diagnostics (printed at Disable when JVMKIT_WALK_DEBUG is set).
  static constexpr int kCodeSlots = -hotspot::asgct::kLowestCode + 2;
  std::atomic<int64_t> first_codes[kCodeSlots]{};
  JVMKIT_SIGNAL_SAFE void count_first_answer(jint code) noexcept {
    const int slot = code >= hotspot::asgct::kLowestCode && code <= 0 ? -code : kCodeSlots - 1;
    first_codes[slot].fetch_add(1, std::memory_order_relaxed);
  }
  void snapshot(jvmkitRecoveryCounters* out) const noexcept;
};
JVMKIT_SIGNAL_SAFE RecoveryCounters& recovery_counters() noexcept;

// True for the ASGCT codes a retry from the caller can fix.
JVMKIT_SIGNAL_SAFE inline bool recoverable_code(jint code) noexcept {
  return code == hotspot::asgct::kUnknownJava || code == hotspot::asgct::kNotWalkableJava ||
         code == hotspot::asgct::kNotWalkableNotJava;
}
// True for a successful walk, or a failure a retry from another context can fix.
JVMKIT_SIGNAL_SAFE inline bool recoverable_or_success(jint code) noexcept { return code > 0 || recoverable_code(code); }

// Runs ASGCT on UCONTEXT into FRAMES (capacity DEPTH) and, when it fails with a recoverable code,
// retries from a validated caller context. Returns ASGCT's final result (> 0: frames written).
// On success, PHYSICAL (capacity kMaxPhysicalFrames) receives the physical frames from the top
// (see physical_walk.hpp; *PHYSICAL_COUNT may be 0 when the top is not in known Java code).
// Recoveries are counted by kind in recovery_counters(). STACK_TOP is the highest address of the
// thread's stack (0: unknown); no stack slot at or above it is read, and with 0 none at all (the
// physical walk and the recovery are skipped). *COARSE_TOP tells whether the interrupted PC lies in
// compiled code with debug records at safepoints only (CodeRange::coarse_debug_info). *COMPLETENESS
// receives the proof that a successful trace is the thread's whole stack (completeness.hpp).
JVMKIT_SIGNAL_SAFE jint capture_with_recovery(hotspot::AsgctFunction asgct, JNIEnv* jni, void* ucontext,
                                              hotspot::AsgctFrame* frames, jint depth,
                                              const CodeSnapshotCell& code_snapshots, uintptr_t stack_top,
                                              PhysicalFrame* physical, int* physical_count, bool* coarse_top,
                                              Completeness* completeness, EntriesOut* entries = nullptr) noexcept;

}  // namespace jvmkit::walk
