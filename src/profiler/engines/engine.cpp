#include "profiler/engines/engine.hpp"

namespace jvmkit::prof {

std::unique_ptr<Engine> make_cpu_engine(const EngineConfig& config);
std::unique_ptr<Engine> make_wall_engine(const EngineConfig& config);
std::unique_ptr<Engine> make_itimer_engine(const EngineConfig& config);
std::unique_ptr<Engine> make_perf_engine(const EngineConfig& config);

std::unique_ptr<Engine> make_engine(const EngineConfig& config) {
  switch (config.event->engine) {
    case EngineKind::kCpu:
      return make_cpu_engine(config);
    case EngineKind::kWall:
      return make_wall_engine(config);
    case EngineKind::kItimer:
      return make_itimer_engine(config);
    case EngineKind::kPerf:
      return make_perf_engine(config);
    case EngineKind::kAlloc:
    case EngineKind::kLock:
      break;  // not signal events: the agent never asks (Options::event is a signal event)
  }
  return make_cpu_engine(config);
}

std::string describe_size(int64_t bytes) {
  if (bytes != 0 && bytes % (int64_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes != 0 && bytes % (int64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes != 0 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

std::string describe_interval(const EventSpec& event, int64_t interval) {
  if (event.engine == EngineKind::kAlloc) return describe_size(interval);
  if (!event.time_based) return std::to_string(interval) + (interval == 1 ? " event" : " events");
  if (interval % 1'000'000'000 == 0) return std::to_string(interval / 1'000'000'000) + " s";
  if (interval % 1'000'000 == 0) return std::to_string(interval / 1'000'000) + " ms";
  if (interval % 1'000 == 0) return std::to_string(interval / 1'000) + " us";
  return std::to_string(interval) + " ns";
}

}  // namespace jvmkit::prof
