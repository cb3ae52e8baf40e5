#!/usr/bin/env bash
# Cost of allocation and lock profiling: wall and CPU time of the fixed workloads of
# jvmkit.test.profiler.AllocLockWorkload ("alloc": allocation-heavy; "lock": locks that are never
# contended), without a profiler, with jvmkit (event=alloc at the default 512 KiB interval;
# event=lock at the default 10 us threshold) and, where it is installed, with async-profiler in
# the same modes (alloc=512k; lock=10us), all started with the JVM (-agentpath); and both profilers
# with allocation samples every 64 KiB, 8 times as many, where the cost of a sample stands out of
# the run-to-run noise; and an agent that only turns HotSpot's heap sampler on, with a callback that
# does nothing (heap_sampler_floor.c): the floor of every such profiler. Every JVM runs with a
# fixed 1 GiB heap. The configurations
# run interleaved, in a random order in every repetition, so that load from elsewhere hits them
# alike; ratios are taken between medians (and minima) of the same invocation.
#
# Usage: bench/profiler/alloc_lock_overhead.sh [BUILD_DIR] [REPETITIONS] [ROUNDS_ALLOC] [ROUNDS_LOCK]
#   defaults: build/prof, 7 repetitions, 15000 alloc rounds, 10000 lock rounds (about 3 s each on
#   JDK 17 here).
#   ASYNC_PROFILER: path of async-profiler's libasyncProfiler.so (built outside this project, e.g.
#   from its v4.5 tag with `make`); without it those configurations are skipped and say so.
# Build first: cmake --build BUILD_DIR --target jvmkit_prof java_test_profiler bench_heap_sampler_floor
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/profiler/stats.sh
build=${1:-build/prof}
reps=${2:-7}
rounds_alloc=${3:-15000}
rounds_lock=${4:-10000}
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
agent="$build/src/profiler/libjvmkit_prof.so"
classes="$build/classes/java_test_profiler"
floor="$build/bench/profiler/libheap_sampler_floor.so"
[ -f "$agent" ] && [ -d "$classes" ] && [ -f "$floor" ] ||
  { echo "build first: cmake --build $build --target jvmkit_prof java_test_profiler bench_heap_sampler_floor"; exit 1; }
ap=${ASYNC_PROFILER:-}
[ -n "$ap" ] && [ ! -f "$ap" ] && { echo "ASYNC_PROFILER=$ap: no such file"; exit 1; }
jdks=(/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

configs_for() {  # WORKLOAD -> its configurations
  local mode=$1
  echo none "jvmkit-$mode"
  [ -n "$ap" ] && echo "async-profiler-$mode"
  # HotSpot's heap sampler on, with a callback that does nothing: what every such profiler pays.
  [ "$mode" = alloc ] && echo heap-sampler-only
  # Allocation samples 8 times as often: the cost of one sample, above the run-to-run noise.
  if [ "$mode" = alloc ]; then
    echo jvmkit-alloc-64k
    [ -n "$ap" ] && echo async-profiler-alloc-64k
  fi
  true
}

run() {  # run JDK WORKLOAD ROUNDS CONFIG -> "elapsed_ns cpu_ns"
  local java=$1/bin/java mode=$2 rounds=$3 config=$4 agent_args=()
  case "$config" in
    none) ;;
    jvmkit-alloc) agent_args=("-agentpath:$agent=event=alloc,file=$out/p.collapsed") ;;
    heap-sampler-only) agent_args=("-agentpath:$floor=524288") ;;
    jvmkit-alloc-64k) agent_args=("-agentpath:$agent=event=alloc,alloc=64k,file=$out/p.collapsed") ;;
    async-profiler-alloc-64k) agent_args=("-agentpath:$ap=start,event=alloc,alloc=64k,collapsed,file=$out/ap.collapsed") ;;
    jvmkit-lock) agent_args=("-agentpath:$agent=event=lock,file=$out/p.collapsed") ;;
    async-profiler-alloc) agent_args=("-agentpath:$ap=start,event=alloc,alloc=512k,collapsed,file=$out/ap.collapsed") ;;
    async-profiler-lock) agent_args=("-agentpath:$ap=start,event=lock,lock=10us,collapsed,file=$out/ap.collapsed") ;;
  esac
  # A fixed heap: the JVM's own heap sizing varies the GC work from run to run.
  "$java" -Xms1g -Xmx1g "${agent_args[@]}" -cp "$classes" jvmkit.test.profiler.AllocLockWorkload "$mode" "$rounds" \
    >"$out/line" 2>"$out/report.$config"
  # Only the workload's line: the JVM's log and async-profiler's messages go to stdout too.
  awk '$1 == "elapsed_ns" {print $2, $4}' "$out/line"
}

echo "# jvmkit allocation and lock profiling overhead: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $reps repetitions; alloc: $rounds_alloc rounds, lock: $rounds_lock rounds; async-profiler: ${ap:-not given (ASYNC_PROFILER), skipped}"
echo
echo "| JDK | workload | config | median wall (s) | min wall (s) | median CPU (s) | wall ratio (median) | wall ratio (min) | CPU ratio (median) |"
echo "|---|---|---|---|---|---|---|---|---|"
notes=()
for jdk in "${jdks[@]}"; do
  [ -x "$jdk/bin/java" ] || { echo "| $(basename "$jdk") | skipped: not installed |"; continue; }
  version=$("$jdk/bin/java" -version 2>&1 | head -1 | sed 's/.*version "\([^"]*\)".*/\1/')
  for mode in alloc lock; do
    rounds=$rounds_alloc
    [ "$mode" = lock ] && rounds=$rounds_lock
    read -r -a configs <<<"$(configs_for "$mode" | tr '\n' ' ')"
    for config in "${configs[@]}"; do : >"$out/$config"; done
    for ((r = 0; r < reps; r++)); do
      for config in $(printf '%s\n' "${configs[@]}" | shuf); do
        run "$jdk" "$mode" "$rounds" "$config" >>"$out/$config"
      done
    done
    # jvmkit's own account of its last run: what it sampled and dropped.
    notes+=("$version, $mode, last jvmkit run: $(grep -E 'samples|dropped' "$out/report.jvmkit-$mode" |
      sed 's/^jvmkit profiler: //' | head -4 | tr '\n' ';')")
    for config in "${configs[@]}"; do ratio_row "$version" "$mode" "$config" "$out/$config" "$out/none"; done
  done
done
echo
for note in "${notes[@]}"; do echo "- $note"; done
