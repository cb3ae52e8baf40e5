// The profiler's window thread (Profiler::loop_main): continuous mode's windows and JFR output's
// chunks, on a schedule of their own, away from the control thread.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "base/clock.hpp"
#include "profiler/run/profiler.hpp"
#include "profiler/run/run_output.hpp"

namespace jvmkit::prof {

// The window thread: in continuous mode, at the end of each window the finished profile is
// written and a new window begins; with JFR output, a chunk is written every chunktime. Sleeps in
// between (no CPU); woken early by end_sampling().
void Profiler::loop_main() {
  constexpr int64_t kNever = INT64_MAX;
  const int64_t window = run_->options.loop_ns;
  const int64_t chunk = run_->jfr ? run_->options.chunk_ns : 0;
  int64_t next_window = window > 0 ? run_->start_mono_ns + window : kNever;
  int64_t next_chunk = chunk > 0 ? run_->start_mono_ns + chunk : kNever;
  std::unique_lock<std::mutex> lock(loop_mutex_);
  while (!loop_stop_) {
    const int64_t wait_ns = std::min(next_window, next_chunk) - jvmkit::monotonic_ns();
    if (wait_ns > 0) {
      loop_wake_.wait_for(lock, std::chrono::nanoseconds(wait_ns));
      continue;  // re-checks the stop flag and the time
    }
    lock.unlock();
    const int64_t now = jvmkit::monotonic_ns();
    if (now >= next_window) {
      end_window();
      next_window += window;
      // After a long stall (a suspended process), the next window starts now, not in the past.
      if (next_window <= jvmkit::monotonic_ns()) next_window = jvmkit::monotonic_ns() + window;
      if (chunk > 0) next_chunk = now + chunk;  // the window's file ended with a chunk just now
    } else {
      run_->jfr->write_chunk(*run_->recording, now);
      next_chunk += chunk;
      if (next_chunk <= jvmkit::monotonic_ns()) next_chunk = jvmkit::monotonic_ns() + chunk;
    }
    lock.lock();
  }
}

// Continuous mode: the finished window is written (errors on stderr) and the next begins.
void Profiler::end_window() {
  apply_freed_objects();
  Recording::Window done = run_->recording->take_window(jvmkit::clock_ns(CLOCK_REALTIME), jvmkit::monotonic_ns());
  const OutputResult written = write_run_window(*run_, done, false);
  if (!written.error && !written.fallback_error && written.waiting_samples == 0 && written.lost_samples == 0) return;
  const std::string lines =
      output_result_lines(written, run_->options.format, sample_counts(profile_list(done.profiles)));
  for (size_t start = 0; start < lines.size();) {
    const size_t end = std::min(lines.find('\n', start), lines.size());
    std::fprintf(stderr, "jvmkit profiler: %s\n", lines.substr(start, end - start).c_str());
    start = end + 1;
  }
}

}  // namespace jvmkit::prof
