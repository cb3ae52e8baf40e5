// Run: the state of one profiling run (start to stop) that the controller (profiler.cpp) owns and
// the run's output (run_output.cpp) and end-of-run report (run_report.cpp) read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "profiler/engines/engine.hpp"
#include "profiler/engines/kernel_chains.hpp"
#include "profiler/events/event_samples.hpp"
#include "profiler/options.hpp"
#include "profiler/outputs/file_pattern.hpp"
#include "profiler/outputs/jfr_output.hpp"
#include "profiler/recording/native_report.hpp"
#include "profiler/recording/recording.hpp"
#include "profiler/recording/report.hpp"

namespace jvmkit::prof {

// One run: start to stop.
struct Run {
  Options options;
  std::unique_ptr<Recording> recording;
  std::unique_ptr<Engine> engine;  // also guarded by the profiler's engine_mutex_
  std::unique_ptr<JfrOutput> jfr;  // format=jfr: the file written as the run goes
  int64_t start_wall_ns = 0;
  int64_t start_mono_ns = 0;
  SampleCounts base;                // process_counts() when the run started
  bool enabled = false;             // the stack-walk library is enabled for this run
  bool attached = false;            // started in the live phase (Agent_OnAttach)
  bool coarse_code_before = false;  // attached to a JVM whose earlier compilations are coarse
  WindowFiles windows{0};
  int64_t window_errors = 0;  // windows whose file asked for could not be written
  std::string last_window;
  std::string program;
  std::string fallback_dir;    // where a profile goes that cannot be written where asked
  bool alloc_started = false;  // SampledObjectAlloc enabled
  bool lock_started = false;   // monitor events enabled (and Unsafe.park hooked, unless park_note says why not)
  std::string park_note;
  std::string native_off_note;               // why a run without cstack= has no native frames ("": it has them)
  int files_per_window = 1;                  // continuous mode: collapsed output of several events is a file per event
  EventRequestCounts alloc_base, lock_base;  // event_request_counts() when the run started
  // cstack=native: the library's table figures, read before Disable releases the tables; the
  // time Enable took (it waits for the tables); the library's table-building time when the run began.
  NativeFigures native_tables;
  int64_t enable_ns = 0;
  KernelChainCounts kernel_base;  // the kernel chains' counts when the run began
  int64_t native_prepare_base_ns = 0;
};

}  // namespace jvmkit::prof
