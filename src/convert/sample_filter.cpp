#include "convert/sample_filter.hpp"

#include <algorithm>

namespace jvmkit::convert {

SampleFilter::SampleFilter(const ConvertOptions& options) : options_(options) {
  // The patterns were checked when the options were parsed: constructing them cannot fail here.
  for (const std::string& p : options.include) include_.regexes.emplace_back(p);
  for (const std::string& p : options.exclude) exclude_.regexes.emplace_back(p);
  const std::string& t = options.threads;
  if (!t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }) && t.size() < 19) {
    thread_id_ = std::stoll(t);
  } else if (!t.empty()) {
    thread_pattern_.emplace(t);
  }
}

bool SampleFilter::Patterns::any_frame(const Sample& s) {
  auto matches = [&](std::string_view name) {
    auto [it, added] = answers.try_emplace(std::string(name), false);
    if (added) {
      it->second = std::any_of(regexes.begin(), regexes.end(),
                               [&](const std::regex& r) { return std::regex_search(it->first, r); });
    }
    return it->second;
  };
  if (!s.leaf_class.empty() && matches(s.leaf_class)) return true;
  return std::any_of(s.frames.begin(), s.frames.end(), [&](const SampleFrame& f) { return matches(f.name); });
}

bool SampleFilter::in_range(const Sample& s) {
  if (!options_.from && !options_.to) return true;
  if (!s.timed) {
    untimed_ += s.count;
    return false;
  }
  if (!first_seen_) {
    // Relative times count from the first sample of the input.
    first_seen_ = true;
    if (options_.from) from_ns_ = options_.from->resolve(s.time_ns);
    if (options_.to) to_ns_ = options_.to->resolve(s.time_ns);
  }
  return s.time_ns >= from_ns_ && s.time_ns < to_ns_;
}

bool SampleFilter::thread_matches(const Sample& s) {
  if (thread_id_) return s.os_tid == *thread_id_ || s.java_tid == *thread_id_;
  if (!thread_pattern_) return true;
  auto [it, added] = thread_answers_.try_emplace(std::string(s.thread), false);
  if (added) it->second = std::regex_search(it->first, *thread_pattern_);
  return it->second;
}

bool SampleFilter::keep(const Sample& s) {
  if (!in_range(s)) return false;  // first: relative times count from the input's first sample
  if (!options_.event.empty() && s.event != options_.event) return false;
  if (!thread_matches(s)) return false;
  if (!include_.regexes.empty() && !include_.any_frame(s)) return false;
  if (!exclude_.regexes.empty() && exclude_.any_frame(s)) return false;
  return true;
}

}  // namespace jvmkit::convert
