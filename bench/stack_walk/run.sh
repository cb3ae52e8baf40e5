#!/usr/bin/env bash
# Stack-walk benchmarks (docs/benchmarks.md, "Stack-walk capture and delivery").
# Usage: bench/stack_walk/run.sh [build dir]   (default build/bench-walk, configured and built here)
# Prints: the ring/wake-up micro-benchmarks, then for each JDK the capture time measured inside the
# signal handler and the delivery thread's CPU per trace, sampling 4 worker threads at 2 kHz for 10 s;
# then (issue 5) the capture against bare AsyncGetCallTrace on the same signals at stack depths 10,
# 100 and 1,000 (jvmkit.test.walk.DepthMain, 2 threads, 2 kHz, 8 s each).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/bench-walk}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" --target stack_walk_primitives_bench stack_walk_capture_bench_agent java_test_stack_walk >/dev/null
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(uname -m) $(nproc) CPUs"
"$build/bench/stack_walk/stack_walk_primitives_bench" --benchmark_min_time=0.5
for home in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64; do
  [ -x "$home/bin/java" ] || continue
  echo "== $("$home/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.runtime.version = //p')"
  "$home/bin/java" "-agentpath:$PWD/$build/bench/stack_walk/libstack_walk_capture_bench_agent.so=rate=2000" \
    -cp "$build/classes/java_test_stack_walk" jvmkit.test.walk.Workers 10 4
  for depth in 10 100 1000; do
    echo "-- depth $depth"
    "$home/bin/java" "-agentpath:$PWD/$build/bench/stack_walk/libstack_walk_capture_bench_agent.so=rate=2000,compare" \
      -cp "$build/classes/java_test_stack_walk" jvmkit.test.walk.DepthMain 8 2 "$depth"
  done
done
