#!/usr/bin/env bash
# The capture against bare AsyncGetCallTrace (the depth part of bench/stack_walk/run.sh), for two
# source trees side by side, interleaved run by run so that the machine's load weighs on both
# alike: A (e.g. a checkout of an earlier commit) and B (default: this tree).
# Usage: bench/stack_walk/capture_ab.sh TREE_A [TREE_B] [REPETITIONS]
# Prints, per JDK, depth (10, 100, 1,000) and tree, the capture and bare ASGCT thread-CPU times and
# their ratio (jvmkit.test.walk.DepthMain 8 2 DEPTH, 2 threads, 2 kHz, 8 s; agent option compare).
set -euo pipefail
a=$(cd "$1" && pwd)
b=$(cd "${2:-$(dirname "$0")/../..}" && pwd)
reps=${3:-1}
for tree in "$a" "$b"; do
  (cd "$tree" && cmake -S . -B build/bench-walk -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
    cmake --build build/bench-walk -j"$(nproc)" --target stack_walk_capture_bench_agent java_test_stack_walk >/dev/null)
done
echo "== $(date -u +%Y-%m-%dT%H:%MZ) A=$a B=$b, $(nproc) CPUs"
for rep in $(seq "$reps"); do
  for home in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64; do
    [ -x "$home/bin/java" ] || continue
    for depth in 10 100 1000; do
      for tree in "$a" "$b"; do
        echo "-- $(basename "$home") depth $depth $([ "$tree" = "$a" ] && echo A || echo B), load $(cut -d' ' -f1 /proc/loadavg)"
        "$home/bin/java" "-agentpath:$tree/build/bench-walk/bench/stack_walk/libstack_walk_capture_bench_agent.so=rate=2000,compare" \
          -cp "$tree/build/bench-walk/classes/java_test_stack_walk" jvmkit.test.walk.DepthMain 8 2 "$depth" 2>&1 | tail -3
      done
    done
  done
done
