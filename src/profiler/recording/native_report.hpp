// The report's native section (cstack=native): how many traces had native frames, why native parts
// ended short (the markers), the samples of each kind of thread (HotSpot's own threads get traces
// too, never failures), and what preparing the unwind tables cost.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "profiler/recording/native_frames.hpp"
#include "profiler/recording/thread_kinds.hpp"

namespace jvmkit::prof {

struct NativeFigures {
  // What the signal event's traces held.
  int64_t traces = 0;                                   // delivered traces
  int64_t with_native = 0;                              // ... with a C/C++, JVM or kernel frame
  int64_t native_only = 0;                              // ... without a Java frame (HotSpot's own threads, mostly)
  int64_t with_kernel = 0;                              // ... with a kernel frame
  std::array<int64_t, kMarkerReasons> markers{};        // marker frames by reason
  std::array<int64_t, kThreadKinds> samples_by_kind{};  // delivered traces by thread kind
  // The stack-walk library's tables (JvmkitGetNativeCounters) and the start's cost.
  int64_t objects_prepared = 0;
  int64_t objects_failed = 0;
  int64_t unwind_rows = 0;
  int64_t prepare_ns = 0;  // building tables during the run, the start's included
  int64_t enable_ns = 0;   // EnableRequestStackTrace's own time (it waits for the tables)
  // Kernel frames: whether the event's samples carried call chains, or why not; the signals that
  // found no sample of their own in the ring (kernel_chains.hpp); why kernel frames are unnamed.
  bool kernel_active = false;
  std::string kernel_why_not;
  int64_t kernel_unmatched = 0;
  int64_t kernel_threads_without_ring = 0;
  std::string kernel_unnamed_why;
};

// The section's lines, without the "jvmkit profiler: " prefix, e.g.
//   native: 2961 of 2979 traces (99.4%) with native frames, 118 of them without Java frames
//   native: markers: join_mismatch 3 (0.1% of traces), ...
//   native: samples by thread kind: Java threads 2861 (96.0%), compiler threads 112 (3.8%), ...
//   native: kernel frames in 812 traces (27.3%), from the perf events' call chains; ...
//   native: unwind tables of 27 objects (0 failed, 312045 rows), built in 181 ms; the start waited 190 ms
// MARKER_LABELS names the marker reasons (the library's short names), indexed as kMarkerNames.
std::vector<std::string> native_report_lines(const NativeFigures& f,
                                             const std::array<std::string, kMarkerReasons>& marker_labels);

}  // namespace jvmkit::prof
