#include <cstdio>

#include "profiler/outputs/writers.hpp"

#include "profiler/outputs/file_pattern.hpp"
#include "profiler/outputs/whole_files.hpp"

namespace jvmkit::prof {

namespace {

// Writes FILES whole (whole_files.hpp); PATHS receives the ones in place, each with its event.
Error write_files(const std::vector<FileBytes>& files, const std::vector<size_t>& events,
                  std::vector<WrittenFile>* paths) {
  std::vector<std::string> renamed;
  const Error e = write_whole_files(files, &renamed);
  for (size_t i = 0; i < renamed.size(); i++) paths->push_back({renamed[i], events[i]});
  return e;
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
    std::vector<FileBytes> files;
    std::vector<size_t> indexes;
    for (size_t i = 0; i < events.size(); i++) {
      files.push_back({event_file_name(options.file, events[i].event), collapsed_of(events[i], options, info)});
      indexes.push_back(i);
    }
    return write_files(files, indexes, paths);
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
  return write_files({{options.file, std::move(bytes)}}, {WrittenFile::kAllEvents}, paths);
}

Error write_profile(const Profile& profile, const Options& options, const RunInfo& info) {
  const EventProfile single = event_profile(profile, info);
  std::vector<WrittenFile> paths;
  return write_profiles(std::span<const EventProfile>(&single, 1), options, info, &paths);
}

}  // namespace jvmkit::prof
