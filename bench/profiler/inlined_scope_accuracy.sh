#!/usr/bin/env bash
# Inlined scopes, side by side: jvmkit and async-profiler on the same workload with known truth
# (jvmkit.test.profiler.InlinedPhases: sibling methods inlined into one compiled loop, each run to
# a System.nanoTime deadline), event cpu, N runs of each, interleaved (jvmkit, async-profiler,
# jvmkit, ...) so that load from elsewhere hits both alike. Prints each run's total-variation
# distance (TV) against the truth and the mean and standard deviation per profiler, mode and JDK,
# with the load average before and after.
#
# Modes: launch (the agent from the JVM's start, -agentpath; shares 60/40) and attach (the
# profiler attached for WINDOW seconds after a warm-up, when the hot code is already compiled:
# no -XX:+DebugNonSafepoints, so that code has debug records at safepoints and calls only;
# shares 50/30/20).
#
# async-profiler is not part of jvmkit: build it outside the tree and pass its directory (the one
# holding build/lib/libasyncProfiler.so and build/bin/asprof).
#
# Usage: bench/profiler/inlined_scope_accuracy.sh [options]
#   --ap DIR          async-profiler directory (required; or ASYNC_PROFILER_HOME)
#   --build DIR       jvmkit build directory (default build/test)
#   --runs N          runs per profiler, mode and JDK (default 5)
#   --interval I      sampling interval (default 10ms)
#   --seconds S       profiled seconds in launch mode (default 15)
#   --window S        profiled seconds in attach mode (default 5)
#   --jdks LIST       17, 25 or 17,25 (default 17,25)
#   --modes LIST      launch, attach or launch,attach (default launch,attach)
#   --workload W      InlinedPhases (default) or LeafClock (a loop inside System.nanoTime, below an
#                     inlined method: every sample belongs to that method)
#   --out FILE        also write the results to FILE
# Build first: cmake --build BUILD_DIR --target jvmkit_prof jvmkit java_test_profiler
set -euo pipefail
cd "$(dirname "$0")/../.."
ap=${ASYNC_PROFILER_HOME:-} build=build/test runs=5 interval=10ms seconds=15 window=5 jdk_list=17,25
modes=launch,attach result_file= workload=InlinedPhases
while [ $# -gt 0 ]; do
  case "$1" in
    --ap) ap=$2 ;;
    --build) build=$2 ;;
    --runs) runs=$2 ;;
    --interval) interval=$2 ;;
    --seconds) seconds=$2 ;;
    --window) window=$2 ;;
    --jdks) jdk_list=$2 ;;
    --modes) modes=$2 ;;
    --out) result_file=$2 ;;
    --workload) workload=$2 ;;
    *) echo "inlined_scope_accuracy.sh: unknown option '$1' (see the usage at the top of the script)"; exit 2 ;;
  esac
  shift 2
done
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
agent="$build/src/profiler/libjvmkit_prof.so" jvmkit="$build/src/profiler/jvmkit"
classes="$build/classes/java_test_profiler"
[ -f "$agent" ] && [ -x "$jvmkit" ] && [ -d "$classes" ] ||
  { echo "build first: cmake --build $build --target jvmkit_prof jvmkit java_test_profiler"; exit 1; }
[ -n "$ap" ] && [ -f "$ap/build/lib/libasyncProfiler.so" ] && [ -x "$ap/build/bin/asprof" ] ||
  { echo "--ap: no async-profiler build at '${ap:-}' (build/lib/libasyncProfiler.so, build/bin/asprof)"; exit 1; }
case "$workload" in InlinedPhases | LeafClock) ;; *) echo "--workload: InlinedPhases or LeafClock, not '$workload'"; exit 2 ;; esac
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "--runs: a positive number, not '$runs'"; exit 2; }
# Both profilers take the interval in nanoseconds here (asprof -i wants a number).
case "$interval" in
  *ms) interval_ns=$((${interval%ms} * 1000000)) ;;
  *us) interval_ns=$((${interval%us} * 1000)) ;;
  *) echo "--interval: e.g. 10ms or 500us, not '$interval'"; exit 2 ;;
esac
ap_lib="$ap/build/lib/libasyncProfiler.so" asprof="$ap/build/bin/asprof"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
declare -A tvs

jdk_home() { case "$1" in 17) echo /usr/lib/jvm/java-17-openjdk-amd64 ;; 25) echo /usr/lib/jvm/temurin-25-jdk-amd64 ;; *) echo "--jdks: 17 or 25, not '$1'" >&2; exit 2 ;; esac; }

# tv JAVA PROFILE TRUTH -> the total-variation distance CheckProfile prints
tv() {
  "$1" -cp "$classes" jvmkit.test.profiler.CheckProfile "$2" "$3" 1 | sed -n -E 's/^total-variation distance ([0-9.]+).*/\1/p'
}

# launch JAVA PROFILER -> TV of one run with the agent from the start
launch() {
  local java=$1 who=$2 opts
  rm -f "$out/p.collapsed" "$out/t.truth"
  if [ "$who" = jvmkit ]; then
    opts="-agentpath:$agent=event=cpu,interval=${interval_ns}ns,file=$out/p.collapsed"
  else
    opts="-agentpath:$ap_lib=start,event=cpu,interval=$interval_ns,collapsed,dot,file=$out/p.collapsed"
  fi
  "$java" "$opts" -cp "$classes" "jvmkit.test.profiler.$workload" "$seconds" "$out/t.truth" 60 40 \
    >"$out/stdout" 2>"$out/stderr" || { cat "$out/stderr"; echo "run failed" >&2; exit 1; }
  tv "$java" "$out/p.collapsed" "$out/t.truth"
}

# attach JAVA PROFILER -> TV of one run attached after the warm-up
attach() {
  local java=$1 who=$2 pid
  rm -f "$out/p.collapsed" "$out/t.truth"
  "$java" -cp "$classes" "jvmkit.test.profiler.$workload" $((window + 6)) "$out/t.truth" 50 30 20 >"$out/stdout" 2>&1 &
  pid=$!
  sleep 3  # warmed up: outer is compiled before the profiler arrives
  if [ "$who" = jvmkit ]; then
    "$jvmkit" profile -e cpu -i "${interval_ns}ns" -d "$window" -o "$out/p.collapsed" "$pid" >"$out/report" 2>&1
  else
    # asprof has no dotted-names option: its class names have slashes, turned into dots here.
    "$asprof" -e cpu -i "$interval_ns" -d "$window" -o collapsed -f "$out/p.collapsed" "$pid" >"$out/report" 2>&1 &&
      sed -i 's#/#.#g' "$out/p.collapsed"
  fi || { cat "$out/report"; kill "$pid"; echo "attach failed" >&2; exit 1; }
  wait "$pid" || { cat "$out/stdout"; echo "workload failed" >&2; exit 1; }
  tv "$java" "$out/p.collapsed" "$out/t.truth"
}

stats() {  # stats VALUES... -> "mean sd"
  printf '%s\n' "$@" | awk '{ s += $1; q += $1 * $1; n++ } END { m = s / n; v = n > 1 ? (q - n * m * m) / (n - 1) : 0;
    printf "%.4f %.4f\n", m, (v > 0 ? sqrt(v) : 0) }'
}

{
  echo "inlined_scope_accuracy: $workload, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, interval $interval, launch ${seconds}s (60/40), attach window ${window}s (50/30/20), $runs runs each"
  echo "jvmkit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), async-profiler $("$asprof" --version 2>/dev/null | head -1)"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  for jdk in ${jdk_list//,/ }; do
    java=$(jdk_home "$jdk")/bin/java
    for mode in ${modes//,/ }; do
      [ "$mode" = launch ] || [ "$mode" = attach ] || { echo "--modes: launch or attach, not '$mode'"; exit 2; }
      for ((r = 1; r <= runs; r++)); do
        for who in jvmkit async-profiler; do
          v=$("$mode" "$java" "$who")
          tvs["$jdk $mode $who"]+="$v "
          echo "JDK $jdk $mode run $r $who TV $v (load $(cut -d' ' -f1 /proc/loadavg))"
        done
      done
    done
  done
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "summary (TV against the truth: mean, standard deviation, runs):"
  for key in "${!tvs[@]}"; do
    # shellcheck disable=SC2086
    read -r mean sd <<<"$(stats ${tvs[$key]})"
    printf '  JDK %-28s mean %s  sd %s  [%s]\n' "$key" "$mean" "$sd" "${tvs[$key]% }"
  done | sort
} | tee ${result_file:+"$result_file"}
