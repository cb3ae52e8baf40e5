#!/usr/bin/env bash
# The native state benchmark, one command: bench/native_state/run.sh [build dir] [runs]
# Builds what it needs (Release, in build/state-bench unless told otherwise), then runs StateBench
# (java/jvmkit/bench/nativestate/StateBench.java) on JDK 17 and JDK 25 and writes the results,
# with the date, the machine's load and the JDK versions, to <build dir>/native_state_bench.txt.
# Figures are ns per operation per thread, median and minimum of [runs] runs (default 7) after 3
# warm-ups; then jvmkit against the Classpath design with 4,096 and 16,384 objects per thread.
# Takes about 30 minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/state-bench}
runs=${2:-7}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" --target native_state_bench bench_native_state_java -j2 >"$build.build.log" 2>&1 ||
  { tail -40 "$build.build.log"; exit 1; }

out=$build/native_state_bench.txt
{
  echo "# bench/native_state/run.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(uname -r)"
  echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out"
for home in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64; do
  if [ ! -x "$home/bin/java" ]; then
    echo "# skipped $home: not installed" >>"$out"
    continue
  fi
  bench() {
    "$home/bin/java" -Xms256m -Xmx256m --enable-native-access=ALL-UNNAMED -Djava.library.path="$build/bench/native_state" \
      -cp "$build/classes/bench_native_state_java" jvmkit.bench.nativestate.StateBench "$@" | tee -a "$out"
  }
  bench "$runs" 1024  # every variant, 1 and 2 threads
  # How the comparison depends on the population (the Classpath design's chains grow with it).
  bench 5 4096 jvmkit,classpath 2
  bench 5 16384 jvmkit,classpath 1
  echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"
done
echo "results: $out"
