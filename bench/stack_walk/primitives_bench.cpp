// Cost of the signal-side building blocks of the stack walker: one slot round trip through the
// free and ready rings (what a capture plus a delivery costs besides ASGCT and the callbacks), and
// the wake-up when nobody sleeps (the common case under load: no syscall).
#include <benchmark/benchmark.h>

#include "concurrent/bounded_queue.hpp"
#include "concurrent/wake_event.hpp"

namespace {

void BM_SlotRoundTrip(benchmark::State& state) {
  jvmkit::BoundedQueue<uint32_t> free_list(1024), ready(1024);
  for (uint32_t i = 0; i < 1024; i++) free_list.push(i);
  uint32_t index = 0;
  uint64_t ticket = 0;
  for (auto _ : state) {
    free_list.pop(&index);
    ready.push(index);
    ready.pop(&index, &ticket);
    free_list.push(index);
  }
  benchmark::DoNotOptimize(ticket);
}
BENCHMARK(BM_SlotRoundTrip);

void BM_NotifyWithoutWaiter(benchmark::State& state) {
  jvmkit::WakeEvent event;
  for (auto _ : state) event.notify();
}
BENCHMARK(BM_NotifyWithoutWaiter);

}  // namespace

BENCHMARK_MAIN();
