#!/usr/bin/env bash
# What preparing native frames costs (docs/benchmarks.md, "Preparing native frames"): libjvm's
# unwind table and symbol index, of each JDK present, and the C library's, built in the process
# of the benchmark (bench/native/prepare_bench.cpp), 7 repetitions, median of CPU time.
# Usage: bench/native/run.sh [build dir] [results file]
#   (defaults: build/bench-native, configured Release and built here; BUILD/native_prepare.txt)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/bench-native}
out=${2:-$build/native_prepare.txt}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target native_prepare_bench >/dev/null
bench="$build/bench/native/native_prepare_bench"
{
  echo "# native_prepare_bench: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# jvmkit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "== the C library"
  "$bench" --benchmark_repetitions=7 --benchmark_report_aggregates_only=true 2>&1 | grep -E "_median" || true
  for home in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64; do
    [ -f "$home/lib/server/libjvm.so" ] || continue
    echo "== $("$home/bin/java" -version 2>&1 | head -1)"
    "$bench" --jvm "$home" --benchmark_repetitions=7 --benchmark_report_aggregates_only=true 2>&1 | grep -E "_median" || true
  done
} | tee "$out"
echo "results: $out"
