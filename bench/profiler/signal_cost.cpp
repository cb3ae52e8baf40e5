// The cost of the sampling signals alone, without a JVM: a fixed amount of integer work on one
// thread, timed (thread CPU time and wall time) with no engine, and with each engine delivering
// signals to an empty handler at 10 ms and 1 ms. Separates what the kernel and the hypervisor
// charge per sample (timer interrupt, signal frame, return) from what the stack walk adds.
// Usage: bench_profiler_signal_cost [repetitions]
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "profiler/engine.hpp"

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
};

Result run(const char* event, int64_t interval) {
  using namespace jvmkit::prof;
  std::unique_ptr<Engine> engine;
  if (event != nullptr) {
    engine = make_engine(EngineConfig{find_event(event), interval, SIGRTMIN + 6});
    pid_t self = static_cast<pid_t>(syscall(SYS_gettid));
    if (Error e = engine->start({self})) {
      std::fprintf(stderr, "%s: %s\n", event, e.message().c_str());
      std::exit(1);
    }
  }
  g_signals = 0;
  double c0 = now(CLOCK_THREAD_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
  work();
  Result r{now(CLOCK_THREAD_CPUTIME_ID) - c0, now(CLOCK_MONOTONIC) - w0, g_signals.load()};
  if (engine) engine->stop();
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
                                 {"itimer 10ms", "itimer", 10'000'000}};
  std::vector<std::vector<double>> cpu(configs.size()), wall(configs.size());
  std::vector<long> signals(configs.size());
  for (int r = 0; r < reps; r++) {
    for (size_t c = 0; c < configs.size(); c++) {
      if (configs[c].event != nullptr && std::string(configs[c].event) == "itimer") {
        sigaction(SIGRTMIN + 6, &sa, nullptr);
      }
      Result res = run(configs[c].event, configs[c].interval);
      cpu[c].push_back(res.cpu);
      wall[c].push_back(res.wall);
      signals[c] = res.signals;
    }
  }
  double base_cpu = median(cpu[0]);
  std::printf("| config | median CPU (s) | median wall (s) | signals (last run) | CPU ratio | us per signal |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (size_t c = 0; c < configs.size(); c++) {
    double m = median(cpu[c]);
    double per = signals[c] > 0 ? (m - base_cpu) / static_cast<double>(signals[c]) * 1e6 : 0;
    std::printf("| %s | %.3f | %.3f | %ld | %.3f | %.1f |\n", configs[c].name, m, median(wall[c]), signals[c],
                m / base_cpu, per);
  }
  return 0;
}
