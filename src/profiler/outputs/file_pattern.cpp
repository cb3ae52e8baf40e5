#include "profiler/outputs/file_pattern.hpp"

#include <time.h>
#include <unistd.h>

#include <algorithm>

namespace jvmkit::prof {
namespace {

// TIME (ns since the epoch) in UTC with strftime's FORMAT.
std::string utc_text(int64_t wall_ns, const char* format) {
  const time_t seconds = static_cast<time_t>(wall_ns / 1'000'000'000);
  struct tm parts {};
  gmtime_r(&seconds, &parts);
  char text[64];
  const size_t n = strftime(text, sizeof(text), format, &parts);
  return std::string(text, n);
}

}  // namespace

std::string expand_file_pattern(std::string_view pattern, int pid, int64_t start_wall_ns) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); i++) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out += pattern[i];
      continue;
    }
    const char what = pattern[i + 1];
    if (what == 'p') {
      out += std::to_string(pid);
    } else if (what == 't') {
      out += utc_text(start_wall_ns, "%Y%m%d-%H%M%S");
    } else if (what == '%') {
      out += '%';
    } else {
      out += '%';
      out += what;
    }
    i++;
  }
  return out;
}

std::string iso_utc(int64_t wall_ns) { return utc_text(wall_ns, "%Y-%m-%dT%H:%M:%SZ"); }

void WindowFiles::written(const std::string& path) {
  total_++;
  if (std::find(kept_.begin(), kept_.end(), path) != kept_.end()) return;
  kept_.push_back(path);
  while (keep_ > 0 && kept_.size() > static_cast<size_t>(keep_)) {
    unlink(kept_.front().c_str());
    kept_.pop_front();
  }
}

}  // namespace jvmkit::prof
