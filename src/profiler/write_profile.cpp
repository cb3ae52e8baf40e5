#include <errno.h>
#include <string.h>

#include <cstdio>

#include "profiler/writers.hpp"

#include "profiler/file_pattern.hpp"

namespace jvmkit::prof {

namespace {

Error write_file(const std::string& path, const std::string& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Error("cannot write " + path + ": " + strerror(errno));
  size_t written = std::fwrite(bytes.data(), 1, bytes.size(), f);
  int close_rc = std::fclose(f);
  if (written != bytes.size() || close_rc != 0) return Error("cannot write " + path + ": " + strerror(errno));
  return Error::ok();
}

// The comment line of a continuous-mode window names the event the file holds.
std::string collapsed_of(const EventProfile& e, const Options& options, const RunInfo& info) {
  RunInfo header = info;
  header.event = e.description;
  return collapsed_text(*e.profile, options.annotate, info.window ? &header : nullptr, e.weighted, options.labels);
}

}  // namespace

std::string window_text(const RunInfo& info) {
  char duration[32];
  std::snprintf(duration, sizeof(duration), "%.1f", static_cast<double>(info.duration_ns) / 1e9);
  return iso_utc(info.start_time_ns) + " for " + duration + " s";
}

std::string EventProfile::shown_unit() const {
  if (!weighted) return "samples";
  if (value_unit == "nanoseconds") return "ns";
  return value_unit;
}

EventProfile event_profile(const Profile& profile, const RunInfo& info) {
  EventProfile e;
  e.profile = &profile;
  e.event = info.event.substr(0, info.event.find(','));
  e.description = info.event;
  e.value_type = info.value_type;
  e.value_unit = info.value_unit;
  e.interval = info.interval;
  return e;
}

std::string event_file_name(const std::string& file, std::string_view event) {
  const size_t slash = file.rfind('/');
  const size_t name_start = slash == std::string::npos ? 0 : slash + 1;
  const std::string_view name = std::string_view(file).substr(name_start);
  // The extension: the last one, or the two of ".pb.gz"; a name's leading dot is not one.
  size_t dot = name.ends_with(".pb.gz") ? name.size() - 6 : name.rfind('.');
  if (dot == std::string::npos || dot == 0) return file + "." + std::string(event);
  dot += name_start;
  return file.substr(0, dot) + "." + std::string(event) + file.substr(dot);
}

Error write_profiles(std::span<const EventProfile> events, const Options& options, const RunInfo& info,
                     std::vector<WrittenFile>* paths) {
  paths->clear();
  if (options.format == OutputFormat::kCollapsed && events.size() > 1) {
    for (size_t i = 0; i < events.size(); i++) {
      const std::string path = event_file_name(options.file, events[i].event);
      if (Error e = write_file(path, collapsed_of(events[i], options, info))) return e;
      paths->push_back({path, i});
    }
    return Error::ok();
  }
  std::string bytes;
  switch (options.format) {
    case OutputFormat::kCollapsed:
      bytes = events.empty() ? std::string() : collapsed_of(events[0], options, info);
      break;
    case OutputFormat::kHtml:
      bytes = html_text(events, info);
      break;
    case OutputFormat::kPprof:
      bytes = pprof_bytes(events, info);
      if (bytes.empty()) return Error("pprof: gzip compression failed");
      break;
    case OutputFormat::kJfr:
      // A recording keeps each sample's time, which these profiles do not: the run writes its
      // JFR file as it goes (jfr_output.hpp).
      return Error("jfr output: written by a run started with it, not from a profile");
  }
  if (Error e = write_file(options.file, bytes)) return e;
  paths->push_back({options.file, WrittenFile::kAllEvents});
  return Error::ok();
}

Error write_profile(const Profile& profile, const Options& options, const RunInfo& info) {
  const EventProfile single = event_profile(profile, info);
  std::vector<WrittenFile> paths;
  return write_profiles(std::span<const EventProfile>(&single, 1), options, info, &paths);
}

}  // namespace jvmkit::prof
