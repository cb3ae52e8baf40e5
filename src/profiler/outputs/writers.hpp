// src/profiler/outputs/: the output formats and how their files are written. The writers
// (collapsed_writer.cpp, html_writer.cpp with flame_graph.html, pprof_writer.cpp with
// proto_encoder.hpp; this file declares them and write_profile.cpp picks one) read finished
// Profiles (recording/); JFR is written while the run goes on, a chunk at a time (jfr_output.hpp,
// jfr_chunk.hpp, chunk_file.hpp), from the Recording's timeline. Every file is written whole
// (whole_files.hpp), named from the run's pattern (file_pattern.hpp), checked when the run starts
// (output_check.hpp), and goes to a fallback file when it cannot be written (output_fallback.hpp).
// The controller (run/run_output.cpp) calls them. Nothing here includes run/.
//
// The three output formats. Each writer turns a finished Profile into the bytes of one file.
//   collapsed  flamegraph.pl's input: "root;caller;leaf count" per line, merged by frame name
//   html       one self-contained interactive flame graph page (no network access needed)
//   pprof      gzipped profile.proto, for go tool pprof, Pyroscope, Parca
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "profiler/options.hpp"
#include "profiler/recording/profile.hpp"

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

// The samples of an event in time, for the HTML page's time view (the converter makes them from
// a recording): the time cut into cells, the samples of each cell, and per (group of cells, node
// of the event's profile) the samples, for the flame graph of a range.
struct TimeCells {
  int64_t start_ns = 0;  // the first cell's start, wall clock
  int64_t cell_ns = 20'000'000;
  uint32_t per_column = 50;                         // cells per column of the page's heatmap
  uint32_t cells = 0;                               // cells from the first to the last sample
  std::vector<std::pair<int64_t, int64_t>> totals;  // per cell: samples, weight
  // The stacks are kept per group of GROUP cells; cell i (from 0) is in group
  // (i + group_offset) / group.
  uint32_t group = 1;
  uint32_t group_offset = 0;
  struct Entry {
    uint32_t cell;  // the group, from 0
    uint32_t node;  // Profile node
    int64_t count;
    int64_t weight;
  };
  std::vector<Entry> entries;
};

// One event's profile, as the writers see it. A run of several events (cpu,alloc,lock) has one
// per event: pprof puts them in one file with all their sample types, html in one page with a
// selector, collapsed in one file each.
struct EventProfile {
  const Profile* profile = nullptr;
  std::string event = "cpu";               // the event's name
  std::string description = "cpu";         // "cpu, interval 10 ms": html info and collapsed headers
  std::string count_type = "samples";      // pprof type of the sample count (its unit is count)
  std::string value_type = "cpu";          // pprof type of the weight
  std::string value_unit = "nanoseconds";  // ... and its unit
  int64_t interval = 0;                    // ns or events per sample; an unweighted sample's weight
  // Samples carry their own weights (alloc: bytes; lock: ns): collapsed and html show weights, and
  // pprof's value is the weight. Otherwise every sample weighs the interval and counts are shown.
  bool weighted = false;
  // html only: the base of a differential flame graph (jvmkit diff): frames are coloured by their
  // change in share from it. Null for none.
  const Profile* base = nullptr;
  // html only: the samples in time, for the page's heatmap and ranges. Null for none.
  const TimeCells* cells = nullptr;

  // What collapsed and html show of a node: its weight or its count.
  int64_t shown(int64_t count, int64_t weight) const { return weighted ? weight : count; }
  // The unit of what they show: "samples", "bytes", "ns".
  std::string shown_unit() const;
};

// The single event of INFO (the event, value type and interval it names) over PROFILE.
EventProfile event_profile(const Profile& profile, const RunInfo& info);

// Lines sorted by stack; frames root first, separated by ';'. ANNOTATE appends frame-type suffixes
// (_[j] ...) and merges by name+type instead of by name. With WINDOW (a continuous-mode window) the
// first line is a comment with its start time and duration. With WEIGHTS, each line ends in the
// stack's total weight (bytes, ns) instead of its sample count. With LABELS, a stack with
// request-context labels starts with one root frame "[k1=v1,k2=v2]" (its label frame); without,
// label frames are left out and their stacks merge with the same stacks of other labels.
std::string collapsed_text(const Profile& profile, bool annotate, const RunInfo* window = nullptr, bool weights = false,
                           bool labels = false);

// "2026-12-03T22:30:01Z for 60.0 s": when the profile started and how long it lasted.
std::string window_text(const RunInfo& info);

// One page; with several events, a selector shows one event's flame graph at a time.
std::string html_text(std::span<const EventProfile> events, const RunInfo& info);
std::string html_text(const Profile& profile, const RunInfo& info);

// The gzip-compressed profile.proto. Sample types, per event: COUNT_TYPE/count and
// VALUE_TYPE/VALUE_UNIT (the weight; samples x interval when not weighted). A sample of one
// event has zeros in the other events' values. Period and default type: the first event's.
std::string pprof_bytes(std::span<const EventProfile> events, const RunInfo& info);
std::string pprof_bytes(const Profile& profile, const RunInfo& info);

// FILE with ".EVENT" put before its extension: "out.collapsed" -> "out.alloc.collapsed";
// "out" -> "out.alloc".
std::string event_file_name(const std::string& file, std::string_view event);

// Writes the events' profiles in OPTIONS.format to OPTIONS.file: one file, except collapsed output
// of several events, one file per event (event_file_name). Each file is written whole or not at all
// (whole_files.hpp). PATHS receives the files written, with EVENTS' index of each ((size_t)-1: all
// of them); on an error, the files in place before it (none, unless a rename failed).
struct WrittenFile {
  std::string path;
  size_t event;  // index into EVENTS, or kAllEvents
  static constexpr size_t kAllEvents = SIZE_MAX;
  // The samples the file holds, when its writer counts them (a JFR file, which may hold a part of
  // the recording); -1: those of its events.
  int64_t samples = -1;
  // A fallback file (output_fallback.hpp), written because the file asked for could not be.
  bool fallback = false;
};
Error write_profiles(std::span<const EventProfile> events, const Options& options, const RunInfo& info,
                     std::vector<WrittenFile>* paths);
// The single-event form.
Error write_profile(const Profile& profile, const Options& options, const RunInfo& info);

}  // namespace jvmkit::prof
