#!/usr/bin/env bash
# Perf events by name sample a real JVM: each software event gives a non-empty profile of the demo
# whose report names the event; and cpu falls back to POSIX timers, saying so, without perf. (Hardware events: bad_options.sh checks they fail without a PMU.)
# Usage: perf_events.sh JAVA AGENT DEMO_CLASSES OUTDIR
set -uo pipefail
java=$1 agent=$2 classes=$3 outdir=$4
mkdir -p "$outdir"
failures=0
for spec in cpu-clock:interval=1ms task-clock:interval=1ms page-faults:interval=10 context-switches:interval=1; do
  event=${spec%%:*}
  out="$outdir/$event.collapsed"
  rm -f "$out"
  if ! "$java" "-agentpath:$agent=event=$event,${spec#*:},file=$out" -cp "$classes" jvmkit.demo.Demo 1 \
      >/dev/null 2>"$outdir/$event.stderr"; then
    cat "$outdir/$event.stderr"; echo "FAIL: $event: the JVM failed"; failures=$((failures + 1)); continue
  fi
  samples=$(awk '{n += $NF} END {print n + 0}' "$out")
  line=$(grep "jvmkit profiler: $event: perf event" "$outdir/$event.stderr")
  echo "$event: $samples samples; $line"
  [ -n "$line" ] || { echo "FAIL: $event: the report does not describe the event"; failures=$((failures + 1)); }
  [ "$samples" -gt 0 ] || { echo "FAIL: $event: no samples"; failures=$((failures + 1)); }
  grep -q 'jvmkit.demo.Demo' "$out" || { echo "FAIL: $event: no demo frames"; failures=$((failures + 1)); }
done
# cpu without perf_event_open (forced): POSIX thread CPU timers, and the report says so.
out="$outdir/cpu-fallback.collapsed"
rm -f "$out"
JVMKIT_PROF_NO_PERF=1 "$java" "-agentpath:$agent=event=cpu,interval=1ms,file=$out" -cp "$classes" jvmkit.demo.Demo 1 \
  >/dev/null 2>"$outdir/cpu-fallback.stderr" || { cat "$outdir/cpu-fallback.stderr"; echo "FAIL: cpu fallback run"; failures=$((failures + 1)); }
samples=$(awk '{n += $NF} END {print n + 0}' "$out" 2>/dev/null)
line=$(grep "POSIX thread CPU timers (FALLBACK" "$outdir/cpu-fallback.stderr")
echo "cpu fallback: ${samples:-0} samples; $line"
[ -n "$line" ] || { echo "FAIL: the report does not say cpu fell back"; failures=$((failures + 1)); }
[ "${samples:-0}" -gt 0 ] || { echo "FAIL: cpu fallback: no samples"; failures=$((failures + 1)); }
[ $failures -eq 0 ] && echo PASS || exit 1
