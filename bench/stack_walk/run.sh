#!/usr/bin/env bash
# Stack-walk benchmarks (docs/benchmarks.md, "Stack-walk capture and delivery").
# Usage: bench/stack_walk/run.sh [build dir]   (default build/bench-walk, configured and built here)
# Prints: the ring/wake-up micro-benchmarks, then for each JDK the capture time measured inside the
# signal handler and the delivery thread's CPU per trace, sampling 4 worker threads at 2 kHz for 10 s;
# then the capture against bare AsyncGetCallTrace on the same signals at stack depths 10,
# 100 and 1,000 (jvmkit.test.walk.DepthMain, 2 threads, 2 kHz, 8 s each); then
# delivery under a flood of requests at depths 20 and 100 (2 threads, 5 s each: delivered traces/s
# and delivery-thread CPU per trace, i.e. traces/s on one core), and the offered rate stepped from
# 2,000 to 200,000 requests/s (3 s per step, depth 20): the highest rate sustained without drops.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/bench-walk}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" --target stack_walk_primitives_bench stack_walk_capture_bench_agent \
  stack_walk_delivery_bench_agent java_test_stack_walk >/dev/null
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(uname -m) $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$build/bench/stack_walk/stack_walk_primitives_bench" --benchmark_min_time=0.5
classes="$build/classes/java_test_stack_walk"
capture="-agentpath:$PWD/$build/bench/stack_walk/libstack_walk_capture_bench_agent.so"
delivery="-agentpath:$PWD/$build/bench/stack_walk/libstack_walk_delivery_bench_agent.so"
for home in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64; do
  [ -x "$home/bin/java" ] || continue
  echo "== $("$home/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.runtime.version = //p')"
  "$home/bin/java" "$capture=rate=2000" -cp "$classes" jvmkit.test.walk.Workers 10 4
  for depth in 10 100 1000; do
    echo "-- depth $depth"
    "$home/bin/java" "$capture=rate=2000,compare" -cp "$classes" jvmkit.test.walk.DepthMain 8 2 "$depth"
  done
  # Delivery flood and rate steps: the programs run longer than the agent's warm-up plus its phases.
  for depth in 20 100; do
    "$home/bin/java" "$delivery=mode=flood,seconds=5" -cp "$classes" jvmkit.test.walk.DepthMain 9 2 "$depth"
  done
  "$home/bin/java" "$delivery=mode=steps,step_ms=3000" -cp "$classes" jvmkit.test.walk.DepthMain 45 2 20
done
