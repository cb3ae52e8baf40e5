// Perf events by name (cpu-clock, task-clock, page-faults, context-switches, cycles, instructions,
// cache-misses, branch-misses): one perf_event_open per thread, overflow every `interval` events
// (ns for the clocks), signalled to the thread itself. An event the machine cannot count (hardware
// events without a PMU) fails at start with the reason.
#include <string.h>
#include <unistd.h>

#include "base/thread_id.hpp"
#include "profiler/engine.hpp"
#include "profiler/per_thread_engine.hpp"
#include "profiler/perf_events.hpp"

namespace jvmkit::prof {

std::unique_ptr<Engine> make_perf_engine(const EngineConfig& config);

namespace {

class PerfEngine final : public PerThreadEngine {
 public:
  explicit PerfEngine(const EngineConfig& config) : config_(config) {}

  std::string description() const override {
    return std::string(config_.event->name) + ": perf event, one sample every " +
           describe_interval(*config_.event, config_.interval) + " per thread, signal " +
           std::to_string(config_.signal);
  }

 protected:
  Error prepare(const std::vector<pid_t>& /*threads*/) override {
    int err = 0;
    int fd =
        open_thread_perf_event(config_.event->perf_type, config_.event->perf_config,
                               static_cast<uint64_t>(config_.interval), jvmkit::current_tid(), config_.signal, &err);
    if (fd < 0) {
      return Error("event=" + std::string(config_.event->name) + ": cannot open the perf event: " + strerror(err) +
                   ": " + perf_error_hint(config_.event->perf_type, err));
    }
    close(fd);
    return Error::ok();
  }

  bool arm(pid_t tid, long* handle, int* err) override {
    *handle = open_thread_perf_event(config_.event->perf_type, config_.event->perf_config,
                                     static_cast<uint64_t>(config_.interval), tid, config_.signal, err);
    return *handle >= 0;
  }

  void disarm(long handle) override { close(static_cast<int>(handle)); }

 private:
  EngineConfig config_;
};

}  // namespace

std::unique_ptr<Engine> make_perf_engine(const EngineConfig& config) { return std::make_unique<PerfEngine>(config); }

}  // namespace jvmkit::prof
