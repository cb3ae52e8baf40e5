// cpu: each thread is sampled on its own CPU time. Preferred source: a per-thread perf software
// event PERF_COUNT_SW_TASK_CLOCK, backed by high-resolution timers, so 1 ms really gives ~1,000
// samples/s per busy thread. Fallback when perf_event_open is unavailable (seccomp, paranoid
// setting, old kernel): a POSIX timer on the thread's CPU clock (timer_create with
// SIGEV_THREAD_ID), which only ticks at the kernel's HZ (250 Hz here); the report says so.
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>

#include "base/thread_id.hpp"
#include "profiler/engines/engine.hpp"
#include "profiler/engines/per_thread_engine.hpp"
#include "profiler/engines/perf_events.hpp"

namespace jvmkit::prof {

std::unique_ptr<Engine> make_cpu_engine(const EngineConfig& config);

namespace {

// The CPU-time clock of another thread of this process, as the kernel encodes it
// (CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED; see clock_getcpuclockid and posix-cpu-timers.c).
clockid_t thread_cpu_clock(pid_t tid) { return static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 6); }

class CpuEngine final : public PerThreadEngine {
 public:
  explicit CpuEngine(const EngineConfig& config) : config_(config) { set_list_threads(config.vm_threads); }

  std::string description() const override {
    std::string s = "cpu: per-thread CPU time every " + describe_interval(*config_.event, config_.interval) + ", ";
    if (use_perf_) return s + "perf task-clock events (high resolution), signal " + std::to_string(config_.signal);
    return s + "POSIX thread CPU timers (FALLBACK: perf_event_open failed: " + fallback_reason_ +
           "; resolution limited to the kernel tick), signal " + std::to_string(config_.signal);
  }

 protected:
  Error prepare(const std::vector<pid_t>& /*threads*/) override {
    // JVMKIT_PROF_NO_PERF=1 forces the fallback (for tests and for comparing the two sources).
    const char* no_perf = getenv("JVMKIT_PROF_NO_PERF");
    if (no_perf != nullptr && no_perf[0] == '1') {
      use_perf_ = false;
      fallback_reason_ = "disabled by JVMKIT_PROF_NO_PERF=1";
      return Error::ok();
    }
    // Probe perf on the calling thread; the answer holds for the whole process.
    int err = 0;
    int fd =
        open_thread_perf_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, static_cast<uint64_t>(config_.interval),
                               jvmkit::current_tid(), config_.signal, &err);
    if (fd >= 0) {
      close(fd);
      use_perf_ = true;
    } else {
      use_perf_ = false;
      fallback_reason_ = std::string(strerror(err)) + " (" + perf_error_hint(PERF_TYPE_SOFTWARE, err) + ")";
    }
    if (config_.kernel_chains) {
      kernel_.why_not = use_perf_ ? kernel_chains_refusal(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
                                                          static_cast<uint64_t>(config_.interval), config_.signal)
                                  : "cpu runs on POSIX timers here, not perf events (" + fallback_reason_ + ")";
      kernel_.active = kernel_.why_not.empty();
    }
    return Error::ok();
  }

  bool arm(pid_t tid, long* handle, int* err) override {
    if (use_perf_) {
      *handle =
          open_thread_perf_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, static_cast<uint64_t>(config_.interval),
                                 tid, config_.signal, err, kernel_.active);
      return *handle >= 0;
    }
    sigevent sev;
    memset(&sev, 0, sizeof(sev));
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = config_.signal;
    sev._sigev_un._tid = tid;  // sigev_notify_thread_id in newer glibc headers
    timer_t timer;
    if (timer_create(thread_cpu_clock(tid), &sev, &timer) != 0) {
      *err = errno;
      return false;
    }
    itimerspec spec;
    spec.it_interval.tv_sec = config_.interval / 1'000'000'000;
    spec.it_interval.tv_nsec = config_.interval % 1'000'000'000;
    spec.it_value = spec.it_interval;
    if (timer_settime(timer, 0, &spec, nullptr) != 0) {
      *err = errno;
      timer_delete(timer);
      return false;
    }
    *handle = reinterpret_cast<long>(timer);  // timer_t is a pointer-sized id
    return true;
  }

  KernelChainsState kernel_chains() const override { return kernel_; }

  void disarm(long handle) override {
    if (use_perf_) {
      close_thread_perf_event(static_cast<int>(handle));
    } else {
      timer_delete(reinterpret_cast<timer_t>(handle));
    }
  }

 private:
  EngineConfig config_;
  bool use_perf_ = true;
  std::string fallback_reason_;
  KernelChainsState kernel_;
};

}  // namespace

std::unique_ptr<Engine> make_cpu_engine(const EngineConfig& config) { return std::make_unique<CpuEngine>(config); }

}  // namespace jvmkit::prof
