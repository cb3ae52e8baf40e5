#include <errno.h>
#include <string.h>

#include <cstdio>

#include "profiler/writers.hpp"

namespace jvmkit::prof {

Error write_profile(const Profile& profile, const Options& options, const RunInfo& info) {
  std::string bytes;
  switch (options.format) {
    case OutputFormat::kCollapsed:
      bytes = collapsed_text(profile, options.annotate);
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
