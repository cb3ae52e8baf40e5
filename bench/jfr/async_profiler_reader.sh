#!/usr/bin/env bash
# async-profiler's converter on jvmkit's recordings: records one recording of each kind with the
# profiler (-agentpath, file=x.jfr), then per recording:
#   layout     jfr_layout_check (src/jfr/layout_check.hpp): the rules async-profiler's converter
#              and JDK Mission Control rely on;
#   jdk        `jfr summary` reads it without an error;
#   per event  `jvmkit convert --event E` and async-profiler's converter (one.convert.Main --E) to
#              collapsed stacks, counts (cpu, wall) or weights with --total (alloc: bytes, lock: ns);
#              bench/jfr/collapsed_diff.py compares them after normalising the two tools' naming
#              (its header): the stacks and totals must be the same.
# Kinds: cpu (perf), itimer, cpu with cstack=native, wall, alloc, lock, cpu+alloc+lock in one file,
# chunks every 100 ms, loop= windows (each file), a perf event (page-faults: the converter has no
# type for jvmkit.PerfEventSample and must skip it), context labels (LabelShares), virtual threads
# (VirtualMix, JDK 21 and later).
# Usage: ASYNC_PROFILER_CONVERTER=/path/to/jfr-converter.jar \
#          bench/jfr/async_profiler_reader.sh --build DIR [--java JAVA_HOME] [--seconds N] [--out FILE]
# Results: docs/bench-results/async_profiler_reader-<date>.txt (or --out). Not part of the tests.
set -uo pipefail
build="" jdk=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64} seconds=2 out=""
converter=${ASYNC_PROFILER_CONVERTER:-}
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --java) jdk=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
done
[ -n "$build" ] || { echo "usage: ASYNC_PROFILER_CONVERTER=JAR $0 --build DIR [--java JAVA_HOME] [--seconds N] [--out FILE]"; exit 2; }
[ -f "$converter" ] || { echo "ASYNC_PROFILER_CONVERTER must name async-profiler's jfr-converter.jar (got '$converter')"; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$build" && pwd)
out=${out:-$here/docs/bench-results/async_profiler_reader-$(date -u +%Y-%m-%d-%H%M).txt}
java=$jdk/bin/java
agent=$build/src/profiler/libjvmkit_prof.so
jvmkit=$build/src/profiler/jvmkit
check=$build/tests/jfr/jfr_layout_check
diff_py=$here/bench/jfr/collapsed_diff.py
demo=$build/classes/java_demo
tests=$build/classes/java_test_profiler
context=$build/classes/java_test_context:$build/java/jvmkit.jar
virtual=$tests:$build/classes/java_test_profiler_jdk21
feature=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
work=${TMPDIR:-/tmp}/jvmkit-bench-ap-reader
rm -rf "$work" && mkdir -p "$work"
failures=0

# record NAME AGENT_OPTIONS CLASSPATH MAIN ARGS...: the recording $work/NAME.jfr (a file pattern in
# the options, such as loop='s, replaces it).
record() {
  local name=$1 options=$2 cp=$3
  shift 3
  case $options in *file=*) ;; *) options="$options,file=$work/$name.jfr" ;; esac
  "$java" "-agentpath:$agent=$options" -cp "$cp" "$@" >"$work/$name.log" 2>&1 ||
    { echo "$name: the profiled run failed:"; tail -5 "$work/$name.log"; failures=$((failures + 1)); }
}

# compare FILE EVENT: one line, jvmkit convert against the converter on EVENT of FILE.
compare() {
  local file=$1 event=$2 base total=() mode=(--"$2") name
  name=$(basename "$file" .jfr)
  base=$work/$name.$event
  [ "$event" = alloc ] || [ "$event" = lock ] && total=(--total)
  [ "$event" = page-faults ] && mode=()  # the converter has no mode for it: its default (every sample)
  "$jvmkit" convert "$file" -o "$base.jvmkit.collapsed" --event "$event" -a "${total[@]}" >/dev/null 2>"$base.jvmkit.log" ||
    { echo "  $event: jvmkit convert failed: $(tail -1 "$base.jvmkit.log")"; failures=$((failures + 1)); return; }
  [ -f "$base.jvmkit.collapsed" ] || : >"$base.jvmkit.collapsed"
  if ! "$java" -cp "$converter" one.convert.Main "${mode[@]}" "${total[@]}" "$file" "$base.ap.collapsed" >"$base.ap.log" 2>&1; then
    printf '  %-12s converter FAILED: %s\n' "$event" "$(grep -m1 -i 'exception' "$base.ap.log")"
    failures=$((failures + 1))
    return
  fi
  local figures verdict
  if figures=$(python3 "$diff_py" "$base.jvmkit.collapsed" "$base.ap.collapsed" 2>"$base.diff"); then
    verdict=same
  else
    verdict=DIFFERENT
  fi
  read -r js jt as at ds dw <<<"$figures"
  if [ "$event" = page-faults ]; then
    # Not compared: the converter skips jvmkit.PerfEventSample (no type of its own for it).
    verdict="read (skipped by the converter: $at samples)"
  elif [ "$verdict" = DIFFERENT ]; then
    failures=$((failures + 1))
  fi
  printf '  %-12s %-9s jvmkit %5s stacks %12s   converter %5s stacks %12s   differ %s (%s)  %s\n' \
    "$event" "${total[*]:-counts}" "$js" "$jt" "$as" "$at" "$ds" "$dw" "$verdict"
  [ "$verdict" = DIFFERENT ] && sed 's/^/    /' "$base.diff"
}

# report FILE EVENTS...: the file's layout and JDK reading, then each event compared.
report() {
  local file=$1 layout summary
  shift
  if layout=$("$check" "$file" 2>&1); then
    layout="layout ok"
  else
    layout="LAYOUT: $(echo "$layout" | sed -n 2p)"
    failures=$((failures + 1))
  fi
  if "$jdk/bin/jfr" summary "$file" >"$file.summary" 2>&1; then summary="jfr summary ok"; else summary="JFR SUMMARY FAILED"; failures=$((failures + 1)); fi
  printf '%s: %s chunks, %s bytes; %s; %s\n' "$(basename "$file")" "$(sed -n 's/^ *Chunks: *//p' "$file.summary")" \
    "$(stat -c %s "$file")" "$layout" "$summary"
  for event in "$@"; do compare "$file" "$event"; done
}

{
  echo "# async-profiler's converter ($(basename "$converter"), one.convert.Main) against jvmkit convert on jvmkit's recordings"
  echo "# $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$here" rev-parse --short HEAD) (with the working tree's changes), $("$java" -version 2>&1 | head -1), $seconds s per run"
  echo "# counts: sample counts; --total: bytes (alloc) or ns waited (lock). 'differ N (W)': stacks and weight that differ after normalising (bench/jfr/collapsed_diff.py)"
  record cpu "event=cpu,interval=1ms" "$demo" jvmkit.demo.Demo "$seconds"
  report "$work/cpu.jfr" cpu
  record itimer "event=itimer,interval=1ms" "$demo" jvmkit.demo.Demo "$seconds"
  report "$work/itimer.jfr" cpu
  record native "event=cpu,interval=1ms,cstack=native" "$demo" jvmkit.demo.Demo "$seconds"
  report "$work/native.jfr" cpu
  record wall "event=wall,interval=5ms" "$tests" jvmkit.test.profiler.WallClock "$seconds" 5000000 "$work/wall.truth"
  report "$work/wall.jfr" wall
  record alloc "event=alloc,alloc=16k" "$tests" jvmkit.test.profiler.AllocShares "$seconds" "$work/alloc.truth"
  report "$work/alloc.jfr" alloc
  record lock "event=lock" "$tests" jvmkit.test.profiler.LockShares "$seconds" "$work/lock.truth"
  report "$work/lock.jfr" lock
  record mixed "event=cpu,alloc,lock,interval=1ms,alloc=16k" "$tests" jvmkit.test.profiler.LockShares "$seconds" "$work/mixed.truth"
  report "$work/mixed.jfr" cpu alloc lock
  record chunks "event=cpu,interval=1ms,chunktime=100ms" "$demo" jvmkit.demo.Demo "$seconds"
  report "$work/chunks.jfr" cpu
  record loop "event=cpu,interval=1ms,loop=1s,file=$work/loop-%t.jfr" "$demo" jvmkit.demo.Demo "$((seconds + 1))"
  for f in "$work"/loop-*.jfr; do report "$f" cpu; done
  record perf "event=page-faults,interval=10" "$demo" jvmkit.demo.Demo "$seconds"
  report "$work/perf.jfr" page-faults
  record labels "event=cpu,interval=1ms" "$context" jvmkit.test.context.LabelShares "$seconds"
  report "$work/labels.jfr" cpu
  echo "labels.jfr: $(grep -c 'jvmkit.SampleContext' <("$jdk/bin/jfr" print --events jvmkit.SampleContext "$work/labels.jfr")) jvmkit.SampleContext events"
  if [ "${feature%%.*}" -ge 21 ]; then
    record virtual "event=cpu,lock,interval=1ms" "$virtual" jvmkit.test.profiler21.VirtualMix \
      "$work/virtual.truth.cpu" "$work/virtual.truth.lock" 200000 "$seconds"
    report "$work/virtual.jfr" cpu lock
  else
    echo "virtual threads: skipped (JDK $feature; VirtualMix needs 21 or later)"
  fi
  echo "# failures: $failures"
} | tee "$out"
echo "results: $out"
grep -q '^# failures: 0$' "$out"
