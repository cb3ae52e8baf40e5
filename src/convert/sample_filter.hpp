// SampleFilter: which samples a conversion keeps (--event, --from/--to, --threads,
// --include/--exclude). Regular expressions are tested once per distinct frame or thread name.
#pragma once

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <unordered_map>
#include <vector>

#include "convert/convert_options.hpp"
#include "convert/samples.hpp"

namespace jvmkit::convert {

class SampleFilter {
 public:
  explicit SampleFilter(const ConvertOptions& options);

  bool keep(const Sample& s);
  // Samples left out because the input has no times, when --from/--to asked for some.
  int64_t untimed() const { return untimed_; }

 private:
  // Whether a frame of S matches PATTERNS (the cache holds each frame name's answer).
  struct Patterns {
    std::vector<std::regex> regexes;
    std::unordered_map<std::string, bool> answers;
    bool any_frame(const Sample& s);
  };

  bool in_range(const Sample& s);
  bool thread_matches(const Sample& s);

  const ConvertOptions& options_;
  bool first_seen_ = false;
  int64_t from_ns_ = INT64_MIN;
  int64_t to_ns_ = INT64_MAX;
  std::optional<int64_t> thread_id_;  // --threads given a number
  std::optional<std::regex> thread_pattern_;
  std::unordered_map<std::string, bool> thread_answers_;
  Patterns include_, exclude_;
  int64_t untimed_ = 0;
};

}  // namespace jvmkit::convert
