#!/usr/bin/env bash
# An attached profiler is as exact as one started with the JVM: a workload with known truth runs
# without any agent; `jvmkit profile` attaches after it has warmed up (2 s of its CPU time), ends
# (Ctrl-C) once a dump of the profile has 3,000 samples, and the profile is compared with the truth
# (the workload keeps fixed shares, so any window has them). The workload runs until the profile is
# written (MAIN until=STOP_FILE). The report the tool prints must add up like the one at JVM exit.
# A busy host gives the workload less CPU time a second: every wait is for CPU time or samples.
# With -a (annotations) at start, the profile stop writes and the dumps keep the frame types.
# Usage: attach_accuracy.sh JAVA JVMKIT CLASSES OUTDIR NAME MAX_TVD [JVM args...] MAIN @STOP@ @TRUTH@
set -uo pipefail
# shellcheck source=report_counts.sh
source "$(dirname "$0")/report_counts.sh"
java=$1 jvmkit=$2 classes=$3 outdir=$4 name=$5 max_tvd=$6
shift 6
mkdir -p "$outdir"
profile="$outdir/$name.collapsed" truth="$outdir/$name.truth" log="$outdir/$name.report"
rm -f "$profile" "$truth"
args=()
stop="$outdir/$name.stop"
rm -f "$stop"
for a in "$@"; do a=${a//@TRUTH@/$truth}; args+=("${a//@STOP@/$stop}"); done
"$java" -cp "$classes" "${args[@]}" >"$outdir/$name.stdout" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
# Warmed up: the hot code is compiled before the profiler arrives (2 s of CPU time, at most 120 s).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0; }
for _ in $(seq 1200); do [ "$(cpu_ticks)" -ge 200 ] && break; sleep 0.1; done
"$jvmkit" profile -e cpu -i 1ms -a -d 300 -o "$profile" "$pid" 2>"$log" &
tool=$!
# 3,000 samples dumped (1 ms of CPU time each: 3 s idle), at most 240 s.
for _ in $(seq 480); do
  sleep 0.5
  "$jvmkit" dump -o "$outdir/$name.dump.collapsed" "$pid" >/dev/null 2>&1 || continue
  [ "$(awk '{n += $NF} END {print n + 0}' "$outdir/$name.dump.collapsed")" -ge 3000 ] && break
done
kill -INT "$tool"
wait "$tool" || { cat "$log"; echo "FAIL: jvmkit profile failed"; exit 1; }
cat "$log"
touch "$stop"
wait "$pid" || { cat "$outdir/$name.stdout"; echo "FAIL: the workload failed"; exit 1; }
report_counts "$log" || { echo "FAIL: report arithmetic: $counts_error"; exit 1; }
[ "$delivered" -ge 1500 ] || { echo "FAIL: only $delivered traces (3,000 samples were dumped)"; exit 1; }
# -a at start: the profile written at stop and the dumps (which name their own file) are annotated.
for f in "$profile" "$outdir/$name.dump.collapsed"; do
  grep -qE '_\[(j|i|0|1)\];' "$f" || { echo "FAIL: $f has no frame-type annotations (-a)"; exit 1; }
done
exec "$java" -cp "$classes" jvmkit.test.profiler.CheckProfile "$profile" "$truth" "$max_tvd"
