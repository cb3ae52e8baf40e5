#!/usr/bin/env bash
# A bad option stops the JVM at start (non-zero exit, the program never runs) with a message that
# names the option and what is wrong; so does an event this machine cannot sample.
# Usage: bad_options.sh JAVA AGENT
set -uo pipefail
java=$1 agent=$2
failures=0
check() {  # check OPTIONS EXPECTED_MESSAGE
  local out rc
  out=$("$java" "-agentpath:$agent=$1" -version 2>&1)
  rc=$?
  if [ $rc -eq 0 ]; then
    echo "FAIL: '$1' was accepted (the JVM ran)"; failures=$((failures + 1)); return
  fi
  if ! grep -qF -- "$2" <<<"$out"; then
    echo "FAIL: '$1': expected '$2' in:"; echo "$out"; failures=$((failures + 1)); return
  fi
  if grep -q 'openjdk version\|java version' <<<"$out"; then
    echo "FAIL: '$1': the JVM went on running"; failures=$((failures + 1)); return
  fi
  echo "ok: '$1' -> exit $rc: $(grep 'jvmkit profiler' <<<"$out")"
}
check "event=bogus" "jvmkit profiler: bad option: event=bogus: unknown event (known: cpu, wall"
check "interval=10xs" "jvmkit profiler: bad option: interval=10xs: unknown unit 'xs' (use ns, us, ms or s)"
check "interval=1us" "jvmkit profiler: bad option: interval=1us: too small (the minimum is 10us)"
check "event=page-faults,interval=5ms" "interval=5ms: event page-faults counts events: give a plain count, no unit"
check "format=svg" "jvmkit profiler: bad option: format=svg: unknown format (use collapsed, html, pprof or jfr)"
check "chunktime=10ms" "jvmkit profiler: bad option: chunktime=10ms: too short (the shortest is 100ms)"
check "file=" "jvmkit profiler: bad option: file=: needs a value"
check "signal=11" "jvmkit profiler: bad option: signal=11: signal not usable for sampling"
check "ann=1" "jvmkit profiler: bad option: ann=1: takes no value"
check "nonsense" "jvmkit profiler: bad option: nonsense: unknown option"
# Hardware events: without a PMU (this VM) they must fail at start, naming the event and the reason.
if [ ! -e /sys/bus/event_source/devices/cpu ] && [ ! -e /sys/bus/event_source/devices/cpu_core ]; then
  for ev in cycles instructions cache-misses branch-misses; do
    check "event=$ev" "jvmkit profiler: event=$ev: cannot open the perf event"
    check "event=$ev" "hardware event not supported on this machine (no hardware PMU"
  done
else
  echo "note: this machine has a PMU; hardware events are tested for success in the unit tests"
fi
[ $failures -eq 0 ] && echo PASS || { echo "FAIL: $failures case(s)"; exit 1; }
