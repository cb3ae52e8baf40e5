#!/usr/bin/env bash
# JDK 25: the profiler (real-time signal by default) keeps its accuracy while JFR's CPU-time
# sampler (which takes SIGPROF) runs in the same JVM, and JFR's sampler keeps working too.
# Usage: jfr_coexist.sh JDK_HOME AGENT CLASSES OUTDIR
set -uo pipefail
jdk=$1 agent=$2 classes=$3 outdir=$4
here=$(dirname "$0")
mkdir -p "$outdir"
jfr="$outdir/cpu.jfr"
rm -f "$jfr"
"$here/run_accuracy.sh" "$jdk/bin/java" "$agent" "$classes" "$outdir" jfr_coexist "interval=1ms" 0.05 \
  "-XX:StartFlightRecording=filename=$jfr,jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=1ms" \
  jvmkit.test.profiler.Ratios 3 @TRUTH@ || exit 1
samples=$("$jdk/bin/jfr" summary "$jfr" | awk '$1 == "jdk.CPUTimeSample" {print $2}')
echo "JFR jdk.CPUTimeSample events: ${samples:-none}"
[ -n "$samples" ] && [ "$samples" -gt 100 ] || { echo "FAIL: JFR's CPU-time sampler recorded too little"; exit 1; }
echo PASS
