#!/usr/bin/env bash
# When the kernel cannot queue a perf event's real-time signal (the user's RLIMIT_SIGPENDING is
# reached), it sends SIGIO instead, whose default action kills the process. With the limit at 0,
# every sample's signal becomes SIGIO: the JVM must run to its end and the report must say that
# samples were lost and why. The same run without the limit is the control: no sample lost.
# Usage: sigio_guard.sh JAVA AGENT DEMO_CLASSES OUTDIR
set -uo pipefail
java=$1 agent=$2 classes=$3 outdir=$4
mkdir -p "$outdir"
failures=0
run() {  # run NAME [ULIMIT_I]
  local name=$1 limit=${2:-}
  ([ -z "$limit" ] || ulimit -i "$limit" || exit 99
   exec "$java" "-agentpath:$agent=event=cpu,interval=1ms,file=$outdir/$name.collapsed" \
    -cp "$classes" jvmkit.demo.Demo 1 >"$outdir/$name.stdout" 2>"$outdir/$name.stderr")
}
run limited 0
rc=$?
lost=$(sed -n -E 's/^jvmkit profiler: at least ([0-9]+) samples lost: the user.s queue of pending signals was full.*/\1/p' \
  "$outdir/limited.stderr")
echo "ulimit -i 0: exit $rc, samples lost: ${lost:-none reported}"
[ $rc -eq 0 ] || { cat "$outdir/limited.stderr"; echo "FAIL: the JVM did not survive SIGIO (exit $rc)"; failures=$((failures + 1)); }
[ "${lost:-0}" -gt 0 ] || { echo "FAIL: the report does not count the lost samples"; failures=$((failures + 1)); }
grep -q '^demo: .* rounds' "$outdir/limited.stdout" || { echo "FAIL: the demo did not run to its end"; failures=$((failures + 1)); }

run control
rc=$?
echo "control: exit $rc, $(grep -c 'samples lost: the user' "$outdir/control.stderr") lost-samples lines"
[ $rc -eq 0 ] || { cat "$outdir/control.stderr"; echo "FAIL: control run failed"; failures=$((failures + 1)); }
if grep -q 'samples lost: the user' "$outdir/control.stderr"; then
  echo "FAIL: samples lost without a limit"; failures=$((failures + 1))
fi
[ $failures -eq 0 ] && echo PASS || exit 1
