// The end-of-run report on stderr: how many samples were requested, delivered, failed and dropped
// (the profiler's own counts next to the stack-walk library's), the top methods, and where the
// output went.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/error.hpp"
#include "profiler/options.hpp"
#include "profiler/recording/profile.hpp"

namespace jvmkit::prof {

struct SampleCounts {
  int64_t signals = 0;     // sampling signals handled while profiling
  int64_t requested = 0;   // RequestStackTrace calls
  int64_t accepted = 0;    // ... that returned JVMTI_ERROR_NONE
  int64_t not_java = 0;    // ... rejected because the thread is not a Java thread
  int64_t dropped = 0;     // ... rejected for any other reason (pool full, ...)
  int64_t overflowed = 0;  // signals the kernel could not queue (RLIMIT_SIGPENDING reached): lost
  int64_t delivered = 0;   // traces received (endStackTrace)
  int64_t failed = 0;      // failure callbacks
  int64_t empty = 0;       // delivered traces without a frame (not added to the profile)
  // Failure callbacks of threads that had no Java frame at the sample (JIT compiler threads, a
  // thread in the JVM's start or exit) while native frames are off: the thread ran only the JVM's
  // own code, so there was no Java stack to give. Counted apart from failures:
  // requested = delivered + failed + dropped + not_java + no_java_code.
  int64_t no_java_code = 0;
  std::vector<std::pair<std::string, int64_t>> failed_by_reason;        // from the library
  std::vector<std::pair<std::string, int64_t>> dropped_by_reason;       // from the library
  std::vector<std::pair<std::string, int64_t>> failed_by_thread;        // thread name -> failures, largest first
  std::vector<std::pair<std::string, int64_t>> no_java_code_by_thread;  // ... and samples without Java code
  // The library's recovery of samples AsyncGetCallTrace could not place (JvmkitGetRecoveryCounters):
  // each attempt re-runs AsyncGetCallTrace in the signal handler, so it is also a cost figure.
  int64_t recovery_attempted = 0;
  std::vector<std::pair<std::string, int64_t>> recovered_by_kind;
  std::vector<std::pair<std::string, int64_t>> unrecovered_by_reason;
  // Traces taken while a virtual thread was mounted, and those the library could not name it in
  // (reported for the carrier), all events (JvmkitGetStackWalkCounters).
  int64_t virtual_traces = 0;
  int64_t virtual_unnamed = 0;
  int64_t virtual_frozen = 0;  // of them, captures that read frozen frames from the heap
};

// The report's block of a JVM event (alloc, lock): its source, its requests' outcomes and its top
// classes by weight.
struct EventBlock {
  std::string event;        // "alloc"
  std::string description;  // how it is sampled
  int64_t requested = 0;    // stack-trace requests made (requested = delivered + failed + dropped)
  int64_t delivered = 0;
  int64_t failed = 0;
  int64_t dropped = 0;
  int64_t empty = 0;             // delivered traces without a frame (not in the profile)
  int64_t below_threshold = -1;  // lock: waits shorter than the threshold, not sampled (-1: not shown)
  int64_t waited = 0;            // requests that waited for a free slot in the library's pool
  int64_t waited_ns = 0;         // ... the time they waited in all
  int64_t samples = 0;           // in the written profile
  int64_t weight = 0;            // ... and their weight
  std::string unit;              // of the weight: "bytes", "ns"
  std::vector<MethodCount> top;  // leaf frames (the classes) by self weight
  std::vector<std::string> notes;
};

struct ReportInput {
  bool signal_event = true;  // the run has a signal event: the engine line, the counts, the top methods
  std::string engine;        // the engine's description
  SampleCounts counts;
  std::vector<MethodCount> top;  // top methods by self samples
  int64_t total_samples = 0;
  std::vector<std::string> native;  // cstack=native: the native section's lines (native_report.hpp)
  std::vector<EventBlock> events;   // the JVM events' blocks
  std::vector<std::string> notes;   // lines about the run's samples (truncated, overflow, windows...)
  std::string output;               // "wrote html flame graph to /x/y.html" or an error; a line per file
  double seconds = 0;
};

std::string report_text(const ReportInput& in);
std::string event_block_text(const EventBlock& block);

// The counts of one run, from process-wide totals NOW and BASE (the totals when the run started):
// every count and every reason's count (matched by name) less its BASE value.
SampleCounts counts_since(const SampleCounts& now, const SampleCounts& base);

// The threads with the most failed samples (FAILURES_BY_TID: tid -> failures), named as the OS
// knows them (JIT compiler threads, for one, are hidden from JVMTI): says whether failures are lost
// Java samples or threads that run no Java code. At most 3, largest first, with the rest summed up
// as "other threads"; a thread that has ended is called 'ended'.
std::vector<std::pair<std::string, int64_t>> failures_by_thread(
    const std::unordered_map<pid_t, int64_t>& failures_by_tid);

// The report's last line: where the output went (FORMAT, written to PATH, SAMPLES samples), or
// WRITE_ERROR when writing failed.
std::string output_outcome(const Error& write_error, OutputFormat format, const std::string& path, int64_t samples);

}  // namespace jvmkit::prof
