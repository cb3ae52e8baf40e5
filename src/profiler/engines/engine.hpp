// src/profiler/engines/: the sources of sampling signals and what the signal brings back. An
// engine (this file; cpu_engine.cpp, wall_engine.cpp, itimer_engine.cpp, perf_engine.cpp, with
// per_thread_engine.hpp, perf_events.hpp and kernel_chains.hpp under them) makes the sampling
// signal reach the threads it samples; the signal handler (signal_sampler.hpp) requests each stack
// from the stack-walk library, and the callbacks of its native requests (native_samples.hpp) feed
// the current Recording (recording/). The event catalogue (event_spec.hpp) says which engine an
// event takes (make_engine); the controller (run/) starts and stops it. Nothing here includes run/.
//
// Engine: one source of sampling signals (adding an event source is adding a file).
//
// An engine only arranges for the sampling signal to reach the threads it samples, at the chosen
// interval; what the signal handler does is not its business (see signal_sampler.hpp). Engines are
// driven from JVMTI callbacks and the agent's start/stop: thread_started/thread_ended may run
// concurrently with each other and with stop(), so engines synchronise internally. None of their
// code runs in signal context.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "profiler/event_spec.hpp"

namespace jvmkit::prof {

struct EngineConfig {
  const EventSpec* event = nullptr;
  int64_t interval = 0;  // ns for time events, a count otherwise
  int signal = 0;        // the signal to deliver to sampled threads
  // HotSpot's own threads have traces too (cstack=native): wall also signals those that start
  // after sampling began (GC workers and compiler threads added on demand), which JVMTI's
  // ThreadStart never reports.
  bool vm_threads = false;
  // cstack=native: perf events also record each sample's kernel call chain (kernel_chains.hpp).
  bool kernel_chains = false;
};

// Whether an engine's samples carry kernel call chains (EngineConfig::kernel_chains), or why not.
struct KernelChainsState {
  bool active = false;
  std::string why_not;  // when asked for and not active: one line for the report
};

class Engine {
 public:
  virtual ~Engine() = default;

  // Starts sampling THREADS (OS thread ids alive now). An Error says why the event cannot be
  // sampled at all; then nothing is left running.
  virtual Error start(const std::vector<pid_t>& threads) = 0;
  // Stops every timer/event; after it returns no new signal is generated (one may still be
  // pending, so the handler must stay installed). Idempotent.
  virtual void stop() = 0;

  // A thread appeared / is about to end (called on that thread, from JVMTI ThreadStart/ThreadEnd).
  virtual void thread_started(pid_t /*tid*/) {}
  virtual void thread_ended(pid_t /*tid*/) {}

  // One line for the report: how the event is sampled, including any fallback taken.
  virtual std::string description() const = 0;
  // Threads the engine could not arm (e.g. a thread that ended between listing and arming).
  virtual int64_t threads_missed() const { return 0; }
  // Kernel call chains (asked for by EngineConfig::kernel_chains): events other than perf events
  // have none.
  virtual KernelChainsState kernel_chains() const {
    return {false, "only perf events record them (cpu, cpu-clock, page-faults, ...), not this event"};
  }

  // Threads for which SKIP returns true are dropped from sampling by engines that signal threads
  // themselves (wall: a thread found to run no Java code would only cost signals). Set before
  // start(); SKIP is called from the engine's own thread and must be thread-safe.
  void set_skip_filter(std::function<bool(pid_t)> skip) { skip_ = std::move(skip); }

 protected:
  std::function<bool(pid_t)> skip_;
};

// The engine for CONFIG.event (never null; errors surface from start()).
std::unique_ptr<Engine> make_engine(const EngineConfig& config);

// Human-readable interval for reports: "10 ms", "250 us", "1000 events", "512 KiB".
std::string describe_interval(const EventSpec& event, int64_t interval);

// "512 KiB", "4 MiB", "1000 bytes".
std::string describe_size(int64_t bytes);

}  // namespace jvmkit::prof
