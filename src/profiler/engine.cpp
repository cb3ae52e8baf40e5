#include "profiler/engine.hpp"

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
  }
  return make_cpu_engine(config);
}

std::string describe_interval(const EventSpec& event, int64_t interval) {
  if (!event.time_based) return std::to_string(interval) + (interval == 1 ? " event" : " events");
  if (interval % 1'000'000'000 == 0) return std::to_string(interval / 1'000'000'000) + " s";
  if (interval % 1'000'000 == 0) return std::to_string(interval / 1'000'000) + " ms";
  if (interval % 1'000 == 0) return std::to_string(interval / 1'000) + " us";
  return std::to_string(interval) + " ns";
}

}  // namespace jvmkit::prof
