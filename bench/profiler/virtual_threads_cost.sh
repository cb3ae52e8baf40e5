#!/usr/bin/env bash
# The profiler's cost on virtual threads whose stacks are mostly frozen: VirtualDeep (the test
# workload of jvm.profiler.virtual_frozen: THREADS virtual threads DEPTH frames deep that yield
# without pause, so that each sample of a virtual thread reads its frozen frames from the heap).
# Work done in SECONDS (the program's "units"), without an agent and with the profiler running
# (event=cpu at 10 ms and at 1 ms, threads), REPS alternating runs each; the median of each and its
# ratio to the runs without an agent. Also, from each profiled run's collapsed output, the share of
# samples in VirtualDeep.spin that had the whole stack (DEPTH + 1 frames of descend).
# Output: docs/bench-results/virtual_threads_cost-<UTC date>.txt (and stdout).
# Usage: bench/profiler/virtual_threads_cost.sh [BUILD_DIR] [JAVA_HOME] [REPS] [SECONDS] [THREADS] [DEPTH]
#   defaults: build/prof, /usr/lib/jvm/temurin-25-jdk-amd64, 5, 3, 4, 150.
# Build first: cmake --build BUILD_DIR --target jvmkit_prof
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/prof}
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
home=${2:-/usr/lib/jvm/temurin-25-jdk-amd64}
reps=${3:-5} seconds=${4:-3} threads=${5:-4} depth=${6:-150}
agent="$build/src/profiler/libjvmkit_prof.so"
[ -f "$agent" ] || { echo "no $agent: build the target jvmkit_prof first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$home/bin/javac" --release 21 -d "$work" java/tests/profiler/jdk21/jvmkit/test/profiler21/VirtualDeep.java

# One run: prints its units, and with an agent (options $1) the whole-stack share of its samples.
run() {
  local options=$1 units
  if [ -z "$options" ]; then
    units=$("$home/bin/java" -cp "$work" jvmkit.test.profiler21.VirtualDeep "$seconds" "$threads" "$depth")
    echo "${units#units }"
    return
  fi
  units=$("$home/bin/java" "-agentpath:$agent=$options,file=$work/out.collapsed" -cp "$work" \
    jvmkit.test.profiler21.VirtualDeep "$seconds" "$threads" "$depth" 2>/dev/null)
  awk -v u="${units#units }" -v want=$((depth + 1)) '
    index($0, "VirtualDeep.spin") > 0 {
      w = $NF; spin += w; n = split($0, f, ";"); d = 0
      for (i = 1; i <= n; i++) if (f[i] ~ /VirtualDeep\.descend$/) d++
      if (d == want) whole += w
    }
    END { printf "%s %d %d\n", u, spin, whole }' "$work/out.collapsed"
}

median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

out="docs/bench-results/virtual_threads_cost-$(date -u +%Y-%m-%d-%H%M).txt"
{
  echo "# VirtualDeep ($threads virtual threads, $depth frames deep, ${seconds} s), $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
  echo "# $("$home/bin/java" -version 2>&1 | head -1); commit $(git rev-parse --short HEAD 2>/dev/null || echo ?) (with local changes: $(git status --short | wc -l) files); load average $(cut -d' ' -f1-3 /proc/loadavg)"
  : >"$work/none" && : >"$work/10ms" && : >"$work/1ms"
  for ((r = 1; r <= reps; r++)); do
    run "" >>"$work/none"
    run "event=cpu,interval=10ms,threads" >>"$work/10ms"
    run "event=cpu,interval=1ms,threads" >>"$work/1ms"
  done
  base=$(median <"$work/none")
  printf "%-34s %10s %8s %s\n" "run" "units" "ratio" "samples in spin with the whole stack"
  printf "%-34s %10s %8s\n" "no agent" "$base" "1.000"
  for interval in 10ms 1ms; do
    units=$(cut -d' ' -f1 "$work/$interval" | median)
    read -r spin whole < <(awk '{s += $2; w += $3} END {print s + 0, w + 0}' "$work/$interval")
    printf "%-34s %10s %8.3f %d of %d\n" "event=cpu,interval=$interval,threads" "$units" \
      "$(awk -v a="$units" -v b="$base" 'BEGIN {print a / b}')" "$whole" "$spin"
  done
  echo "# all runs (units): none $(tr '\n' ' ' <"$work/none")"
  echo "#   10ms: $(cut -d' ' -f1 "$work/10ms" | tr '\n' ' ')"
  echo "#   1ms: $(cut -d' ' -f1 "$work/1ms" | tr '\n' ' ')"
} | tee "$out"
echo "wrote $out"
