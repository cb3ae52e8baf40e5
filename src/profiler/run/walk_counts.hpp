// The stack-walk library's own counts for the end-of-run report: failures and drops by reason,
// and its recovery of samples AsyncGetCallTrace could not place.
#pragma once

#include "profiler/recording/report.hpp"

namespace jvmkit::prof {

// Adds the library's counters (JvmkitGetStackWalkCounters, JvmkitGetRecoveryCounters), each
// reason by its name, to *COUNTS. Call once the library has delivered every outcome
// (DisableRequestStackTrace returned).
void add_stack_walk_counts(SampleCounts* counts);

}  // namespace jvmkit::prof
