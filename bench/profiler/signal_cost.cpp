// The cost of the sampling signals alone, without a JVM: a fixed amount of integer work on one
// thread, timed (thread CPU time and wall time) with no engine, and with each engine delivering
// signals to an empty handler at 10 ms and 1 ms. Separates what the kernel and the hypervisor
// charge per sample (timer interrupt, signal frame, return) from what the stack walk adds.
// Also measures an alternative source: a sampler thread that reads the thread's
// CPU clock every interval and sends tgkill only when the thread ran a full interval since its
// last signal. The timer interrupt and the perf irq_work self-IPI then land on the sampler's CPU;
// the sampled thread only takes the signal (and a reschedule IPI when it runs on another CPU).
// Usage: bench_profiler_signal_cost [repetitions]
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "base/thread_id.hpp"
#include "profiler/engines/engine.hpp"

namespace {

std::atomic<long> g_signals{0};
void empty_handler(int, siginfo_t*, void*) { g_signals.fetch_add(1, std::memory_order_relaxed); }

double now(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

volatile uint64_t g_sink;

// About 1 s of dependent integer work on an idle core.
void work() {
  uint64_t x = 1;
  for (long i = 0; i < 600'000'000L; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
  g_sink = x;
}

struct Result {
  double cpu, wall;
  long signals;
  double sampler_cpu;  // CPU time of the tgkill sampler thread (0 for the engines)
};

// The tgkill sampler: every INTERVAL of wall time, signals TARGET if TARGET_CLOCK advanced by at
// least INTERVAL since the last signal (so ~one signal per INTERVAL of the thread's CPU time, at the
// resolution of the sampler's wake-ups).
class TgkillSampler {
 public:
  TgkillSampler(pid_t target, clockid_t target_clock, int64_t interval)
      : target_(target), clock_(target_clock), interval_(interval), thread_([this] { loop(); }) {}
  // Stops and joins the thread; returns its CPU time (the sampler's own cost, paid on its CPU).
  double finish() {
    stop_.store(true);
    thread_.join();
    return cpu_;
  }

 private:
  void loop() {
    timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    int64_t last = cpu_ns(clock_);
    while (!stop_.load(std::memory_order_relaxed)) {
      next.tv_nsec += interval_;
      while (next.tv_nsec >= 1'000'000'000) {
        next.tv_nsec -= 1'000'000'000;
        next.tv_sec++;
      }
      clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
      int64_t ran = cpu_ns(clock_);
      if (ran - last >= interval_) {
        last = ran;
        syscall(SYS_tgkill, getpid(), target_, SIGRTMIN + 6);
      }
    }
    cpu_ = now(CLOCK_THREAD_CPUTIME_ID);  // read by finish() after the join
  }
  static int64_t cpu_ns(clockid_t clock) {
    timespec ts;
    clock_gettime(clock, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
  }

  pid_t target_;
  clockid_t clock_;
  int64_t interval_;
  std::atomic<bool> stop_{false};
  double cpu_ = 0;
  std::thread thread_;  // last: started once the fields above are set
};

Result run(const char* event, int64_t interval) {
  using namespace jvmkit::prof;
  using jvmkit::Error;
  std::unique_ptr<Engine> engine;
  std::unique_ptr<TgkillSampler> sampler;
  if (event != nullptr && std::string(event) == "tgkill") {
    clockid_t clock;
    pthread_getcpuclockid(pthread_self(), &clock);
    sampler = std::make_unique<TgkillSampler>(jvmkit::current_tid(), clock, interval);
  } else if (event != nullptr) {
    engine = make_engine(EngineConfig{find_event(event), interval, SIGRTMIN + 6});
    pid_t self = jvmkit::current_tid();
    if (Error e = engine->start({self})) {
      std::fprintf(stderr, "%s: %s\n", event, e.message().c_str());
      std::exit(1);
    }
  }
  g_signals = 0;
  double c0 = now(CLOCK_THREAD_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
  work();
  Result r{now(CLOCK_THREAD_CPUTIME_ID) - c0, now(CLOCK_MONOTONIC) - w0, g_signals.load(), 0};
  if (engine) engine->stop();
  if (sampler) r.sampler_cpu = sampler->finish();
  return r;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  struct sigaction sa {};
  sa.sa_sigaction = empty_handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGRTMIN + 6, &sa, nullptr);
  struct Config {
    const char* name;
    const char* event;
    int64_t interval;
  };
  std::vector<Config> configs = {{"none", nullptr, 0},
                                 {"cpu 10ms", "cpu", 10'000'000},
                                 {"cpu 1ms", "cpu", 1'000'000},
                                 {"itimer 10ms", "itimer", 10'000'000},
                                 {"tgkill sampler 10ms", "tgkill", 10'000'000},
                                 {"tgkill sampler 1ms", "tgkill", 1'000'000}};
  std::vector<std::vector<double>> cpu(configs.size()), wall(configs.size()), sampler(configs.size());
  std::vector<long> signals(configs.size());
  for (int r = 0; r < reps; r++) {
    for (size_t c = 0; c < configs.size(); c++) {
      if (configs[c].event != nullptr && std::string(configs[c].event) == "itimer") {
        sigaction(SIGRTMIN + 6, &sa, nullptr);
      }
      Result res = run(configs[c].event, configs[c].interval);
      cpu[c].push_back(res.cpu);
      wall[c].push_back(res.wall);
      sampler[c].push_back(res.sampler_cpu);
      signals[c] = res.signals;
    }
  }
  double base_cpu = median(cpu[0]);
  std::printf("| config | median CPU (s) | median wall (s) | signals (last run) | CPU ratio | us per signal | %s |\n",
              "sampler thread CPU (s)");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (size_t c = 0; c < configs.size(); c++) {
    double m = median(cpu[c]);
    double per = signals[c] > 0 ? (m - base_cpu) / static_cast<double>(signals[c]) * 1e6 : 0;
    std::printf("| %s | %.3f | %.3f | %ld | %.3f | %.1f | %.3f |\n", configs[c].name, m, median(wall[c]), signals[c],
                m / base_cpu, per, median(sampler[c]));
  }
  return 0;
}
