// The events the profiler can sample on, by the name the user gives in `event=NAME`.
// One row per event: how it is sampled (which engine), whether its interval is a time or a count,
// its default interval, and how pprof names its values. Adding an event is adding a row to kEvents
// in event_spec.cpp (and, for a new kind of source, an engine file); docs/profiler/events.md's event table
// and the launcher's usage must name it too, which a unit test (catalogue_test.cpp) checks.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace jvmkit::prof {

enum class EngineKind {
  kCpu,     // per-thread CPU time: perf task-clock per thread, POSIX thread CPU timers as fallback
  kWall,    // all threads at a wall-clock interval, running or not (a sampler thread + tgkill)
  kItimer,  // process CPU time: setitimer(ITIMER_PROF)
  kPerf,    // a named perf event, per thread (perf_event_open)
  // Events of the JVM itself, reported through JVMTI on the thread they happen on; no signal.
  kAlloc,  // sampled object allocations (SampledObjectAlloc): the interval is a mean in bytes
  kLock,   // contended monitors and parked threads: the interval is a threshold in ns
};

struct EventSpec {
  std::string_view name;
  EngineKind engine;
  bool time_based;              // interval is a duration in ns (suffixes allowed) rather than a count
  int64_t default_interval;     // ns when time_based, else events per sample
  uint32_t perf_type;           // perf_event_attr.type (kPerf only)
  uint64_t perf_config;         // perf_event_attr.config (kPerf only)
  std::string_view pprof_type;  // pprof sample type of the weighted value, e.g. "cpu"
  std::string_view pprof_unit;  // its unit, e.g. "nanoseconds" or "count"
  // pprof sample type of the sample count ("samples"; Go's names for allocations and contentions).
  std::string_view pprof_count_type = "samples";
  // Whether a sample carries its own weight (an allocation's bytes, a wait's nanoseconds), shown
  // by the collapsed and HTML outputs instead of the sample count. Otherwise every sample weighs
  // the interval, and counts are shown.
  bool weighted = false;

  // Sampled by a signal (an engine); the others come from JVMTI events.
  bool signal_based() const { return engine != EngineKind::kAlloc && engine != EngineKind::kLock; }
};

// Every event, in the order messages list them.
std::span<const EventSpec> all_events();

// The event called NAME, or nullptr when there is none.
const EventSpec* find_event(std::string_view name);

// "cpu, wall, itimer, cpu-clock, ...": every event name in table order, for messages.
const std::string& event_names();

}  // namespace jvmkit::prof
