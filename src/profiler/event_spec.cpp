#include "profiler/event_spec.hpp"

#include <linux/perf_event.h>

#include <string>

namespace jvmkit::prof {
namespace {

constexpr int64_t kMs = 1'000'000;

// Defaults: 10 ms for CPU-time events (async-profiler's default too: ~100 samples/s per busy
// thread is cheap and enough for a profile of a few seconds); 20 ms for wall clock, whose cost
// grows with the number of threads, running or not. Count events get periods that give a few
// hundred samples per second on ordinary code (hardware) or sample every event (rare ones).
constexpr EventSpec kEvents[] = {
    {"cpu", EngineKind::kCpu, true, 10 * kMs, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "cpu", "nanoseconds"},
    {"wall", EngineKind::kWall, true, 20 * kMs, 0, 0, "wall", "nanoseconds"},
    {"itimer", EngineKind::kItimer, true, 10 * kMs, 0, 0, "cpu", "nanoseconds"},
    {"cpu-clock", EngineKind::kPerf, true, 10 * kMs, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock",
     "nanoseconds"},
    {"task-clock", EngineKind::kPerf, true, 10 * kMs, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock",
     "nanoseconds"},
    {"page-faults", EngineKind::kPerf, false, 1, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults", "count"},
    {"context-switches", EngineKind::kPerf, false, 1, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
     "context-switches", "count"},
    {"cycles", EngineKind::kPerf, false, 10'000'000, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles", "count"},
    {"instructions", EngineKind::kPerf, false, 10'000'000, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
     "instructions", "count"},
    {"cache-misses", EngineKind::kPerf, false, 10'000, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache-misses",
     "count"},
    {"branch-misses", EngineKind::kPerf, false, 10'000, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES,
     "branch-misses", "count"},
    // The JVM's own events (no signal): alloc's interval is the mean of the heap sampler's
    // exponentially distributed gaps in bytes (HotSpot's default, 512 KiB); lock's is the shortest
    // wait reported (async-profiler's default, 10 us).
    {"alloc", EngineKind::kAlloc, false, 512 * 1024, 0, 0, "alloc_space", "bytes", "alloc_objects", true},
    {"lock", EngineKind::kLock, true, 10'000, 0, 0, "delay", "nanoseconds", "contentions", true},
};

}  // namespace

std::span<const EventSpec> all_events() { return kEvents; }

const EventSpec* find_event(std::string_view name) {
  for (const EventSpec& e : kEvents) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

const std::string& event_names() {
  // Built from kEvents, so the list in messages can never miss a row.
  static const std::string names = [] {
    std::string out;
    for (const EventSpec& e : kEvents) {
      if (!out.empty()) out += ", ";
      out += e.name;
    }
    return out;
  }();
  return names;
}

}  // namespace jvmkit::prof
