// Perf events by name (cpu-clock, task-clock, page-faults, context-switches, cycles, instructions,
// cache-misses, branch-misses): one perf_event_open per thread, overflow every `interval` events
// (ns for the clocks), signalled to the thread itself. An event the machine cannot count (hardware
// events without a PMU) fails at start with the reason.
#include <string.h>
#include <unistd.h>

#include "base/thread_id.hpp"
#include "profiler/engines/engine.hpp"
#include "profiler/engines/per_thread_engine.hpp"
#include "profiler/engines/perf_events.hpp"

namespace jvmkit::prof {

std::unique_ptr<Engine> make_perf_engine(const EngineConfig& config);

namespace {

class PerfEngine final : public PerThreadEngine {
 public:
  explicit PerfEngine(const EngineConfig& config) : config_(config) { set_list_threads(config.vm_threads); }

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
    if (config_.kernel_chains) {
      kernel_.why_not = kernel_chains_refusal(config_.event->perf_type, config_.event->perf_config,
                                              static_cast<uint64_t>(config_.interval), config_.signal);
      kernel_.active = kernel_.why_not.empty();
    }
    return Error::ok();
  }

  bool arm(pid_t tid, long* handle, int* err) override {
    *handle = open_thread_perf_event(config_.event->perf_type, config_.event->perf_config,
                                     static_cast<uint64_t>(config_.interval), tid, config_.signal, err, kernel_.active);
    return *handle >= 0;
  }

  void disarm(long handle) override { close_thread_perf_event(static_cast<int>(handle)); }

  KernelChainsState kernel_chains() const override { return kernel_; }

 private:
  EngineConfig config_;
  KernelChainsState kernel_;
};

}  // namespace

std::unique_ptr<Engine> make_perf_engine(const EngineConfig& config) { return std::make_unique<PerfEngine>(config); }

}  // namespace jvmkit::prof
