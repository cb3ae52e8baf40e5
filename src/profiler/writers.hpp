// The three output formats. Each writer turns a finished Profile into the bytes of one file.
//   collapsed  flamegraph.pl's input: "root;caller;leaf count" per line, merged by frame name
//   html       one self-contained interactive flame graph page (no network access needed)
//   pprof      gzipped profile.proto, for go tool pprof, Pyroscope, Parca
#pragma once

#include <cstdint>
#include <string>

#include "base/error.hpp"
#include "profiler/options.hpp"
#include "profiler/profile.hpp"

namespace jvmkit::prof {

// What the writers say about the run besides the samples.
struct RunInfo {
  std::string title = "jvmkit profile";  // html title
  std::string event = "cpu";             // event name
  std::string value_type = "cpu";        // pprof type of the weighted value
  std::string value_unit = "nanoseconds";
  int64_t interval = 0;       // ns or events per sample (weight of one sample)
  int64_t start_time_ns = 0;  // wall-clock start, ns since the epoch
  int64_t duration_ns = 0;
  std::string program = "java";  // pprof Mapping filename: the main class or jar
  bool window = false;           // a continuous-mode window: collapsed output starts with a comment line
};

// Lines sorted by stack; frames root first, separated by ';'. ANNOTATE appends frame-type suffixes
// (_[j] ...) and merges by name+type instead of by name. With WINDOW (a continuous-mode window) the
// first line is a comment with its start time and duration.
std::string collapsed_text(const Profile& profile, bool annotate, const RunInfo* window = nullptr);

// "2026-12-03T22:30:01Z for 60.0 s": when the profile started and how long it lasted.
std::string window_text(const RunInfo& info);

std::string html_text(const Profile& profile, const RunInfo& info);

// The gzip-compressed profile.proto. Sample types: samples/count and VALUE_TYPE/VALUE_UNIT
// (samples x interval).
std::string pprof_bytes(const Profile& profile, const RunInfo& info);

// Writes the profile in OPTIONS.format to OPTIONS.file.
Error write_profile(const Profile& profile, const Options& options, const RunInfo& info);

}  // namespace jvmkit::prof
