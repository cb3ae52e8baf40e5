// A sample as the converter sees it, whatever its input: a recording's event or a line of
// collapsed stacks. The views are valid during the callback that hands the sample out.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "base/error.hpp"
#include "profiler/recording/profile.hpp"

namespace jvmkit::convert {

struct SampleFrame {
  std::string_view name;  // "java.lang.String.hashCode", "__memmove_avx_unaligned_erms"
  prof::FrameType type = prof::FrameType::kJit;
  int32_t line = 0;
};

struct Sample {
  std::string_view event;  // "cpu", "wall", "alloc", "lock", or a perf event's name
  int64_t time_ns = 0;     // when it was taken (wall clock, ns since the epoch); 0: no time known
  bool timed = false;      // the input has times (a recording; collapsed stacks have none)
  int64_t os_tid = 0;
  int64_t java_tid = -1;
  std::string_view thread;              // its name; "" when unknown
  std::span<const SampleFrame> frames;  // leaf first
  bool truncated = false;
  std::string_view leaf_class;  // alloc, lock: the class allocated or waited for
  // The stack's identity in the input, for the converter's cache: samples with the same nonzero
  // STACK_ID and STACK_EPOCH have the same frames and truncation (a recording's stack within one
  // chunk), and within an epoch equal leaf classes have the same view (the same characters at the
  // same address). 0: not known, the frames are read each time.
  uint64_t stack_id = 0;
  uint64_t stack_epoch = 0;
  int64_t count = 1;   // samples it stands for (a collapsed line's count)
  int64_t weight = 0;  // ns, bytes or events it stands for; 0 when the input says none
};

// Calls F for each sample of the input; F returns false to stop. The inputs' errors name the byte
// offset at which reading stopped; the samples before it have been handed out.
using SampleFunction = std::function<bool(const Sample&)>;

// A recording (.jfr). INTERVALS receives, per event, the interval its settings name (for the
// weight of samples without one).
Error read_jfr_samples(const std::string& path, const SampleFunction& f);
// Collapsed stacks: "root;...;leaf COUNT" per line, with the profiler's _[x] frame-type suffixes
// or without; EVENT names their event.
Error read_collapsed_samples(const std::string& path, std::string_view event, const SampleFunction& f);

// pprof (profile.proto, gzip-compressed or not): a sample per stack and event (a pair of sample
// types count/value, e.g. samples/count and cpu/nanoseconds, is one event).
Error read_pprof_samples(const std::string& path, const SampleFunction& f);

// Reads PATH as its contents say: a recording (JFR's magic bytes), pprof (gzip or protobuf
// bytes), else collapsed stacks of EVENT.
Error read_samples(const std::string& path, std::string_view event, const SampleFunction& f);

// Whether PATH is a recording (it starts with JFR's magic bytes).
bool is_jfr_file(const std::string& path);

}  // namespace jvmkit::convert
