#!/usr/bin/env bash
# Profiler overhead: wall time of a fixed single-threaded workload
# (jvmkit.test.profiler.OverheadWorkload) without the profiler, with event=cpu at 10 ms and at 1 ms
# started with the JVM (-agentpath), and the same two attached to the running JVM by `jvmkit start`
# after its warm-up ("attach 10ms", "attach 1ms"), on each JDK. Every run waits after its warm-up
# until it is told to go (the window the attached configurations attach in), so the timed phases
# are alike. The configurations are interleaved in a random order in every repetition, so that
# load from elsewhere hits them alike; the ratio is taken between medians (and between minima, the
# least disturbed runs) of the same invocation of this script.
#
# Usage: bench/profiler/overhead.sh [BUILD_DIR] [REPETITIONS] [ROUNDS]
#   defaults: build/prof, 7 repetitions, 3s
#   ROUNDS: a number of rounds for every JDK, or a duration "Ns": for each JDK, the number of rounds
#   whose timed phase takes about N seconds of the main thread's CPU time without the agent,
#   calibrated by one run that is not counted (CPU time, so that a loaded machine does not shrink
#   the count; JDK 25 does the same rounds ~1.8x faster than JDK 17: a fixed count gives it a
#   shorter timed phase, on which any fixed cost and noise weigh more). The chosen count is
#   printed and, per JDK, used alike with and without the profiler.
# Build first: cmake --build BUILD_DIR --target jvmkit_prof jvmkit java_test_profiler
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/prof}
reps=${2:-7}
rounds_arg=${3:-3s}
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
agent="$build/src/profiler/libjvmkit_prof.so"
jvmkit="$build/src/profiler/jvmkit"
classes="$build/classes/java_test_profiler"
[ -f "$agent" ] && [ -x "$jvmkit" ] && [ -d "$classes" ] ||
  { echo "build first: cmake --build $build --target jvmkit_prof jvmkit java_test_profiler"; exit 1; }
configs=(none 10ms 1ms attach-10ms attach-1ms)
jdks=(/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# rounds_for JDK -> the rounds to run on JDK (see ROUNDS above)
rounds_for() {
  case "$rounds_arg" in
    *s)
      local seconds=${rounds_arg%s} probe=500 ns
      ns=$("$1/bin/java" -cp "$classes" jvmkit.test.profiler.OverheadWorkload "$probe" | awk '{print $4}')
      [ -n "$ns" ] && [ "$ns" -gt 0 ] || { echo "calibration run failed on $1" >&2; exit 1; }
      awk -v s="$seconds" -v p="$probe" -v ns="$ns" 'BEGIN { printf "%d\n", s * 1e9 * p / ns }' ;;
    *) echo "$rounds_arg" ;;
  esac
}

run() {  # run JDK CONFIG -> "elapsed_ns cpu_ns"
  local java=$1/bin/java config=$2 agent_args=() pid
  rm -f "$out/ready" "$out/go" "$out/line"
  case "$config" in
    none | attach-*) ;;
    *) agent_args=("-agentpath:$agent=event=cpu,interval=$config,file=$out/p.collapsed") ;;
  esac
  "$java" "${agent_args[@]}" -cp "$classes" jvmkit.test.profiler.OverheadWorkload "$rounds" "$out/ready" "$out/go" \
    >"$out/line" 2>"$out/report.txt" &
  pid=$!
  while [ ! -e "$out/ready" ]; do sleep 0.01; done
  case "$config" in
    attach-*) "$jvmkit" start -e cpu -i "${config#attach-}" -o "$out/p.collapsed" "$pid" >/dev/null 2>&1 ||
      { echo "jvmkit start failed" >&2; exit 1; } ;;
  esac
  touch "$out/go"
  wait "$pid"
  awk '{print $2, $4}' "$out/line"
}

# shellcheck source=bench/profiler/stats.sh
. bench/profiler/stats.sh

echo "# jvmkit profiler overhead: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $reps repetitions x {${configs[*]}}, rounds per run: $rounds_arg"
echo
echo "| JDK | rounds | config | median wall (s) | min wall (s) | median CPU (s) | wall ratio (median) | wall ratio (min) | CPU ratio (median) |"
echo "|---|---|---|---|---|---|---|---|---|"
notes=()
for jdk in "${jdks[@]}"; do
  [ -x "$jdk/bin/java" ] || { echo "| $(basename "$jdk") | skipped: not installed |"; continue; }
  version=$("$jdk/bin/java" -version 2>&1 | head -1 | sed 's/.*version "\([^"]*\)".*/\1/')
  rounds=$(rounds_for "$jdk")
  for config in "${configs[@]}"; do : >"$out/$config"; done
  for ((r = 0; r < reps; r++)); do
    for config in $(printf '%s\n' "${configs[@]}" | shuf); do
      run "$jdk" "$config" >>"$out/$config"
      if [ "$config" = 1ms ]; then cp "$out/report.txt" "$out/report.1ms"; fi
    done
  done
  # The agent's own account of the last 1 ms run: samples, failures, ASGCT recoveries (each one
  # re-runs AsyncGetCallTrace in the handler).
  notes+=("$version, last 1 ms run: $(grep -E 'samples requested|stack-walk recovery' "$out/report.1ms" |
    sed 's/^jvmkit profiler: //' | tr '\n' ';')")
  for config in "${configs[@]}"; do ratio_row "$version" "$rounds" "$config" "$out/$config" "$out/none"; done
done
echo
for note in "${notes[@]}"; do echo "- $note"; done
