#!/usr/bin/env bash
# The layout of every kind of JFR recording the profiler writes, as readers other than the JDK's
# expect it: jfr_layout_check (src/jfr/layout_check.hpp) finds no problem in any of them, which is
# what async-profiler's converter and JDK Mission Control rely on (each pool's type declared
# without a superType and with the fields its entries are written with, ints in at most five
# bytes, UTF-8 symbols, sample events of exactly the fields read by position, settings of declared
# event types). And the JDK's own readers still read each of them (jfr summary, RecordingFile).
# Kinds: cpu+alloc+lock in chunks of 200 ms, wall, a perf event (page-faults), cstack=native,
# context labels (LabelShares), loop= windows, virtual threads (JDK 25: VirtualMix).
# Usage: jfr_layout.sh JDK_HOME JDK_FEATURE AGENT LAYOUT_CHECK CLASSES DEMO CONTEXT_CP VIRTUAL_CP JFR_CLASSES OUTDIR
set -euo pipefail
jdk=$1 feature=$2 agent=$3 check=$4 classes=$5 demo=$6 context=$7 virtual=$8 jfr_classes=$9 out=${10}
java=$jdk/bin/java
rm -rf "$out" && mkdir -p "$out"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
quick=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)  # for the readers: a short read is cheaper so
jquick=(-J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC)

# record NAME AGENT_OPTIONS CLASSPATH MAIN ARGS...: writes $out/NAME.jfr (or the options' file=).
record() {
  local name=$1 options=$2 cp=$3
  shift 3
  case $options in *file=*) ;; *) options="$options,file=$out/$name.jfr" ;; esac
  "$java" "-agentpath:$agent=$options" -cp "$cp" "$@" >"$out/$name.log" 2>&1 ||
    { tail -5 "$out/$name.log"; fail "$name: the profiled run failed"; }
}

record mixed "event=cpu,alloc,lock,interval=1ms,alloc=16k,chunktime=200ms" "$classes" \
  jvmkit.test.profiler.LockShares 1 "$out/mixed.truth"
record wall "event=wall,interval=5ms" "$classes" jvmkit.test.profiler.WallClock 1 5000000 "$out/wall.truth"
record perf "event=page-faults,interval=10" "$demo" jvmkit.demo.Demo 1
record native "event=cpu,interval=1ms,cstack=native" "$demo" jvmkit.demo.Demo 1
record labels "event=cpu,interval=1ms" "$context" jvmkit.test.context.LabelShares 1
record loop "event=cpu,interval=1ms,loop=1s,file=$out/loop-%t.jfr" "$demo" jvmkit.demo.Demo 2
if [ "$feature" -ge 25 ]; then
  record virtual "event=cpu,lock,interval=1ms" "$virtual" jvmkit.test.profiler21.VirtualMix \
    "$out/virtual.truth.cpu" "$out/virtual.truth.lock" 20000 0.5
fi

files=("$out"/*.jfr)
echo "--- jfr_layout_check"
"$check" "${files[@]}" | tee "$out/layout.txt" || fail "a recording breaks the layout other readers rely on"
for f in "${files[@]}"; do
  grep -F "$f: " "$out/layout.txt" | grep -E ': [1-9][0-9]* chunks, [1-9][0-9]* pools \([0-9]+ entries\), [1-9][0-9]* events' >/dev/null ||
    fail "$(basename "$f"): no chunks, pools or events checked"
done
# Several chunks in one file, and several files of loop=.
chunks=$(sed -n "s|^$out/mixed.jfr: \([0-9]*\) chunks.*|\1|p" "$out/layout.txt")
[ "${chunks:-0}" -ge 3 ] || fail "mixed.jfr has ${chunks:-no} chunks, not 3 or more (chunktime=200ms)"
shopt -s nullglob
windows=("$out"/loop-*.jfr)
[ "${#windows[@]}" -ge 2 ] || fail "loop= wrote ${#windows[@]} files, not 2 or more"

echo "--- the JDK's readers"
for f in "${files[@]}"; do
  name=$(basename "$f" .jfr)
  "$jdk/bin/jfr" "${jquick[@]}" summary "$f" >"$out/$name.summary" 2>&1 || { cat "$out/$name.summary"; fail "$name: jfr summary failed"; }
  "$java" "${quick[@]}" -cp "$jfr_classes" jvmkit.test.jfr.JfrDump "$f" >"$out/$name.dump" 2>&1 ||
    { tail -3 "$out/$name.dump"; fail "$name: RecordingFile failed"; }
  echo "$name: jfr summary and RecordingFile read it ($(grep -m1 '^events=' "$out/$name.dump"))"
done
# The event types each kind must have (jfr summary counts them).
expect() {  # expect NAME TYPE...
  local name=$1 type
  shift
  for type in "$@"; do
    grep -Eq "^ *$type +[1-9]" "$out/$name.summary" || fail "$name: jfr summary counts no $type"
  done
}
expect mixed jdk.ExecutionSample jdk.ObjectAllocationSample jdk.JavaMonitorEnter jdk.ThreadPark jdk.ActiveSetting
expect wall profiler.WallClockSample
expect perf jvmkit.PerfEventSample
expect native jdk.ExecutionSample
expect labels jdk.ExecutionSample jvmkit.SampleContext
[ "$feature" -ge 25 ] && expect virtual jdk.ExecutionSample jdk.ThreadPark

[ "$failures" -eq 0 ] || exit 1
echo PASS
