// The end-of-run report of a run: what report.cpp turns into text, gathered from the run's
// recording, the process-wide counters (the signal handler's, the stack-walk library's) and the
// JVM events' request counts.
#pragma once

#include <string>
#include <vector>

#include "profiler/recording/profile.hpp"
#include "profiler/recording/report.hpp"
#include "profiler/run/run.hpp"

namespace jvmkit::prof {

// The process-wide counters (the signal handler's, the stack-walk library's) now.
SampleCounts process_counts();

// The report of RUN, which just ended (sampling stopped), with OUTPUT_LINE last; the top methods
// and sample totals are those of PROFILES, the written profiles (one per event of the run).
std::string run_report(const Run& run, const std::string& output_line, const std::vector<const Profile*>& profiles);

}  // namespace jvmkit::prof
