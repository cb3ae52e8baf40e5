// Output file names of continuous profiling: a pattern expanded per window, and the bound on how
// many window files a run keeps.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

namespace jvmkit::prof {

// PATTERN with %p replaced by PID, %t by the time START_WALL_NS (ns since the epoch) as UTC
// yyyymmdd-hhmmss, and %% by %. Any other % sequence is kept as written.
std::string expand_file_pattern(std::string_view pattern, int pid, int64_t start_wall_ns);

// "2026-12-03T22:30:01Z": a wall-clock time for reports and file headers.
std::string iso_utc(int64_t wall_ns);

// The window files one run has written, oldest first; past KEEP of them (0: no bound) the oldest
// is deleted. Only files this run wrote are ever deleted, never anything else that matches.
class WindowFiles {
 public:
  explicit WindowFiles(int keep) : keep_(keep) {}
  // Records PATH as written (a name written again, e.g. two windows in one second, is not
  // counted twice) and deletes the oldest files past the bound.
  void written(const std::string& path);
  int64_t total_written() const { return total_; }
  const std::deque<std::string>& kept() const { return kept_; }

 private:
  int keep_;
  int64_t total_ = 0;
  std::deque<std::string> kept_;
};

}  // namespace jvmkit::prof
