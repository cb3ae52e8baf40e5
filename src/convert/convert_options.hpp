// The command line of `jvmkit convert IN -o OUT [options]` (docs/profiler/converting.md, "Converting
// recordings"), read without side effects. A mistake is an Error naming the option:
//   "--from=abc: not a time (seconds from the start: 10, 2.5s, 500ms; or a UTC time: 11:10:20,
//    2026-12-05T11:10:20Z)"
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "profiler/options.hpp"

namespace jvmkit::convert {

// A point in a recording: relative to its first event, or a wall-clock time (UTC).
struct TimePoint {
  bool relative = true;
  int64_t ns = 0;       // relative: ns after the recording's first event
  int64_t wall_ns = 0;  // absolute: ns since the epoch
  // A time of day without a date ("11:10:20"): on the date of the recording's first event.
  bool time_of_day = false;
  // The point in wall-clock ns, for a recording whose first event is at FIRST_NS.
  int64_t resolve(int64_t first_ns) const;
};

// What a run of convert does.
enum class OutputKind { kProfile, kHeatmap };

struct ConvertOptions {
  std::string input;  // convert's input; diff's new profile
  std::string base;   // diff's base profile
  std::string output;
  prof::OutputFormat format = prof::OutputFormat::kHtml;  // of a profile output
  OutputKind kind = OutputKind::kProfile;                 // --format heatmap, or an output named *.heatmap.html
  std::optional<TimePoint> from, to;
  std::string threads;                        // a pattern of thread names, or a thread id (OS or Java); "" for all
  std::string event;                          // "" for every event of the input
  std::vector<std::string> include, exclude;  // regular expressions, matched against frame names
  bool reverse = false;                       // callee first: the leaf frames are the roots
  bool total = false;                         // weights (ns, bytes) rather than sample counts
  bool annotate = false;                      // collapsed: frame-type suffixes
  bool threads_split = false;                 // a root frame per thread (--split-threads)
};

// Parses ARGS (the arguments after COMMAND: "convert", one input; or "diff", BASE and NEW).
Error parse_convert_options(const std::vector<std::string>& args, ConvertOptions* out,
                            std::string_view command = "convert");

// Parses a --from/--to value.
Error parse_time_point(std::string_view text, TimePoint* out);

}  // namespace jvmkit::convert
