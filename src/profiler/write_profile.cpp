#include <errno.h>
#include <string.h>

#include <cstdio>

#include "profiler/writers.hpp"

#include "profiler/file_pattern.hpp"

namespace jvmkit::prof {

std::string window_text(const RunInfo& info) {
  char duration[32];
  std::snprintf(duration, sizeof(duration), "%.1f", static_cast<double>(info.duration_ns) / 1e9);
  return iso_utc(info.start_time_ns) + " for " + duration + " s";
}

Error write_profile(const Profile& profile, const Options& options, const RunInfo& info) {
  std::string bytes;
  switch (options.format) {
    case OutputFormat::kCollapsed:
      bytes = collapsed_text(profile, options.annotate, info.window ? &info : nullptr);
      break;
    case OutputFormat::kHtml:
      bytes = html_text(profile, info);
      break;
    case OutputFormat::kPprof:
      bytes = pprof_bytes(profile, info);
      if (bytes.empty()) return Error("pprof: gzip compression failed");
      break;
  }
  FILE* f = std::fopen(options.file.c_str(), "wb");
  if (f == nullptr) return Error("cannot write " + options.file + ": " + strerror(errno));
  size_t written = std::fwrite(bytes.data(), 1, bytes.size(), f);
  int close_rc = std::fclose(f);
  if (written != bytes.size() || close_rc != 0) return Error("cannot write " + options.file + ": " + strerror(errno));
  return Error::ok();
}

}  // namespace jvmkit::prof
