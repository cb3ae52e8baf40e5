#!/usr/bin/env bash
# After `jvmkit stop`, nothing of the profiler runs or costs CPU: no thread of its own, no timer, no
# perf event, no signal; the process' CPU time over two idle seconds is what it was before the
# first start. An idle JVM is profiled with wall sampling at 1 ms (every thread signalled 1,000
# times a second: a cost that would show), twice, to see that a second run also leaves nothing.
# Usage: idle_after_stop.sh JAVA JVMKIT CLASSES OUTDIR
set -uo pipefail
java=$1 jvmkit=$2 classes=$3 outdir=$4
rm -rf "$outdir" && mkdir -p "$outdir"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$java" -Xmx64m -cp "$classes" jvmkit.test.profiler.IdleTarget 120 >"$outdir/stdout" 2>"$outdir/stderr" &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
for _ in $(seq 100); do grep -q ready "$outdir/stdout" && break; sleep 0.1; done
sleep 2  # start-up work (JIT, class loading) settles

ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }  # utime + stime, in clock ticks
idle_ticks() { local a b; a=$(ticks); sleep 2; b=$(ticks); echo $((b - a)); }
profiler_leftovers() {  # threads, POSIX timers, perf events the profiler could have left
  local out=""
  for t in /proc/$pid/task/*; do
    case "$(cat "$t/comm" 2>/dev/null)" in jvmkit*) out+=" thread '$(cat "$t/comm")'" ;; esac
  done
  [ -s "/proc/$pid/timers" ] && out+=" timers: $(grep -c '^ID' "/proc/$pid/timers")"
  local perf
  perf=$(ls -l "/proc/$pid/fd" 2>/dev/null | grep -c 'perf_event')
  [ "$perf" -gt 0 ] && out+=" perf events: $perf"
  echo "$out"
}

before=$(idle_ticks)
for round in 1 2; do
  "$jvmkit" start -e wall -i 1ms "$pid" || fail "start (round $round) failed"
  running=$(idle_ticks)
  [ -n "$(profiler_leftovers)" ] || fail "while running, no sign of the profiler (the check would see nothing)"
  "$jvmkit" stop -o "$outdir/round$round.collapsed" "$pid" 2>"$outdir/stop$round.txt" || { cat "$outdir/stop$round.txt"; fail "stop (round $round) failed"; }
  after=$(idle_ticks)
  left=$(profiler_leftovers)
  echo "round $round: CPU ticks over 2 s: before any start $before, while sampling $running, after stop $after;" \
    "left after stop:${left:- nothing}"
  [ -z "$left" ] || fail "after stop:$left"
  [ "$running" -gt $((before + 10)) ] || fail "sampling cost no CPU ($running vs $before ticks): the measurement cannot tell"
  [ "$after" -le $((before + 5)) ] || fail "after stop the JVM uses $after ticks per 2 s, before $before"
done
"$jvmkit" status "$pid" >"$outdir/status.txt" 2>&1
grep -q "not running" "$outdir/status.txt" || fail "status after stop: $(cat "$outdir/status.txt")"
[ $failures -eq 0 ] && echo PASS || exit 1
