// The events the profiler can sample on, by the name the user gives in `event=NAME`.
// One row per event: how it is sampled (which engine), whether its interval is a time or a count,
// its default interval, and how pprof names its values. Adding an event is adding a row here (and,
// for a new kind of source, an engine file).
#ifndef JVMKIT_PROFILER_EVENT_SPEC_HPP
#define JVMKIT_PROFILER_EVENT_SPEC_HPP

#include <cstdint>
#include <string_view>

namespace jvmkit::prof {

enum class EngineKind {
  kCpu,     // per-thread CPU time: perf task-clock per thread, POSIX thread CPU timers as fallback
  kWall,    // all threads at a wall-clock interval, running or not (a sampler thread + tgkill)
  kItimer,  // process CPU time: setitimer(ITIMER_PROF)
  kPerf,    // a named perf event, per thread (perf_event_open)
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
};

// The event called NAME, or nullptr when there is none.
const EventSpec* find_event(std::string_view name);

// "cpu, wall, itimer, cpu-clock, ...": every event name, for messages and --help.
const char* event_names();

}  // namespace jvmkit::prof

#endif
