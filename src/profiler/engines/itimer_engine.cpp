// itimer: the classic process-wide CPU-time timer, setitimer(ITIMER_PROF): the kernel sends SIGPROF
// to whichever thread is running when the process has used `interval` of CPU. It needs no thread
// tracking but ticks at the kernel's HZ. ITIMER_PROF can only send SIGPROF; when another signal is
// asked for (e.g. because JDK 25's JFR CPU-time sampler owns SIGPROF) the same timer is made with
// timer_create(CLOCK_PROCESS_CPUTIME_ID) and that signal.
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "profiler/engines/engine.hpp"

namespace jvmkit::prof {

std::unique_ptr<Engine> make_itimer_engine(const EngineConfig& config);

namespace {

class ItimerEngine final : public Engine {
 public:
  explicit ItimerEngine(const EngineConfig& config) : config_(config) {}
  ~ItimerEngine() override { stop(); }

  Error start(const std::vector<pid_t>& /*threads*/) override {
    itimerspec spec;
    spec.it_interval.tv_sec = config_.interval / 1'000'000'000;
    spec.it_interval.tv_nsec = config_.interval % 1'000'000'000;
    spec.it_value = spec.it_interval;
    if (config_.signal == SIGPROF) {
      itimerval tv;
      tv.it_interval.tv_sec = spec.it_interval.tv_sec;
      tv.it_interval.tv_usec = spec.it_interval.tv_nsec / 1000;
      if (tv.it_interval.tv_sec == 0 && tv.it_interval.tv_usec == 0) tv.it_interval.tv_usec = 1;
      tv.it_value = tv.it_interval;
      if (setitimer(ITIMER_PROF, &tv, nullptr) != 0) {
        return Error(std::string("event=itimer: setitimer(ITIMER_PROF) failed: ") + strerror(errno));
      }
      armed_ = kItimer;
      return Error::ok();
    }
    sigevent sev;
    memset(&sev, 0, sizeof(sev));
    sev.sigev_notify = SIGEV_SIGNAL;
    sev.sigev_signo = config_.signal;
    if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &sev, &timer_) != 0) {
      return Error(std::string("event=itimer: timer_create(CLOCK_PROCESS_CPUTIME_ID) failed: ") + strerror(errno));
    }
    if (timer_settime(timer_, 0, &spec, nullptr) != 0) {
      int err = errno;
      timer_delete(timer_);
      return Error(std::string("event=itimer: timer_settime failed: ") + strerror(err));
    }
    armed_ = kPosixTimer;
    return Error::ok();
  }

  void stop() override {
    if (armed_ == kItimer) {
      itimerval zero;
      memset(&zero, 0, sizeof(zero));
      setitimer(ITIMER_PROF, &zero, nullptr);
    } else if (armed_ == kPosixTimer) {
      timer_delete(timer_);
    }
    armed_ = kNone;
  }

  std::string description() const override {
    std::string how = config_.signal == SIGPROF
                          ? "setitimer(ITIMER_PROF), SIGPROF"
                          : "timer_create(CLOCK_PROCESS_CPUTIME_ID), signal " + std::to_string(config_.signal);
    return "itimer: process CPU time every " + describe_interval(*config_.event, config_.interval) + ", " + how +
           " (kernel-tick resolution)";
  }

 private:
  enum Armed { kNone, kItimer, kPosixTimer };
  EngineConfig config_;
  Armed armed_ = kNone;
  timer_t timer_{};
};

}  // namespace

std::unique_ptr<Engine> make_itimer_engine(const EngineConfig& config) {
  return std::make_unique<ItimerEngine>(config);
}

}  // namespace jvmkit::prof
