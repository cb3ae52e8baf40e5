#include "profiler/run/walk_counts.hpp"

#include <jvmkit/stack_walk.h>

namespace jvmkit::prof {
namespace {

void add_failure_and_drop_reasons(SampleCounts* counts) {
  jvmkitStackWalkCounters walk{};
  if (JvmkitGetStackWalkCounters(&walk) != JVMTI_ERROR_NONE) return;
  for (int r = 0; r < JVMKIT_FAILURE_REASON_COUNT; r++) {
    counts->failed_by_reason.emplace_back(JvmkitFailureReasonName(static_cast<jvmkitFailureReason>(r)),
                                          walk.failed_by_reason[r]);
  }
  for (int r = 0; r < JVMKIT_REJECT_REASON_COUNT; r++) {
    if (r == JVMKIT_REJECT_UNATTACHED_THREAD) continue;  // reported as "on non-Java threads"
    counts->dropped_by_reason.emplace_back(JvmkitRejectReasonName(static_cast<jvmkitRejectReason>(r)),
                                           walk.rejected_by_reason[r]);
  }
  counts->virtual_traces = walk.virtual_threads;
  counts->virtual_unnamed = walk.virtual_unnamed;
  counts->virtual_frozen = walk.virtual_frozen;
}

void add_recovery(SampleCounts* counts) {
  jvmkitRecoveryCounters recovery{};
  if (JvmkitGetRecoveryCounters(&recovery) != JVMTI_ERROR_NONE) return;
  counts->recovery_attempted = recovery.attempted;
  for (int k = 0; k < JVMKIT_RECOVERY_KIND_COUNT; k++) {
    counts->recovered_by_kind.emplace_back(JvmkitRecoveryKindName(static_cast<jvmkitRecoveryKind>(k)),
                                           recovery.recovered_by_kind[k]);
  }
  for (int r = 0; r < JVMKIT_UNRECOVERED_REASON_COUNT; r++) {
    counts->unrecovered_by_reason.emplace_back(JvmkitUnrecoveredReasonName(static_cast<jvmkitUnrecoveredReason>(r)),
                                               recovery.unrecovered_by_reason[r]);
  }
}

}  // namespace

void add_stack_walk_counts(SampleCounts* counts) {
  add_failure_and_drop_reasons(counts);
  add_recovery(counts);
}

}  // namespace jvmkit::prof
