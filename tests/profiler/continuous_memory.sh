#!/usr/bin/env bash
# Continuous mode with bounded memory: a program that makes new distinct stacks all the time,
# profiled in one-second windows with a small profile bound. Checks that every window is written
# (keep= leaves the last 3), that the samples in the windows add up to the samples delivered, that
# the bound is reached and counted ([overflow]), and that the JVM's resident memory stays flat
# after the first windows (the heap is fixed and pre-touched, so what grows would be the agent's).
# Random recursion only, no new hidden classes: those grow the JVM's own memory (metaspace, code)
# by about 33 kB/s with or without the agent (measured 2026-12-03), which would hide the agent's.
# Usage: continuous_memory.sh JAVA AGENT CLASSES OUTDIR WINDOWS MAX_GROWTH_KB
set -uo pipefail
java=$1 agent=$2 classes=$3 outdir=$4 windows=$5 max_growth_kb=$6
rm -rf "$outdir" && mkdir -p "$outdir"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$java" -Xms256m -Xmx256m -XX:+AlwaysPreTouch \
  "-agentpath:$agent=interval=1ms,loop=1s,keep=3,max_stacks=5000,file=$outdir/window-%p-%t.collapsed" \
  -cp "$classes" jvmkit.test.profiler.DistinctStacks $((windows + 1)) 0 >"$outdir/stdout" 2>"$outdir/stderr" &
pid=$!
# Resident memory once a second while it runs (kB).
: >"$outdir/rss"
while kill -0 "$pid" 2>/dev/null; do
  awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" >>"$outdir/rss" 2>/dev/null
  sleep 1
done
wait "$pid" || fail "the JVM exited with status $?"
cat "$outdir/stderr"

kept=$(find "$outdir" -name 'window-*.collapsed' | wc -l)
[ "$kept" -eq 3 ] || fail "keep=3 left $kept window files"
line=$(grep -E '^jvmkit profiler: continuous: ' "$outdir/stderr")
written=$(sed -n -E 's/.*continuous: ([0-9]+) windows.*/\1/p' <<<"$line")
[ "${written:-0}" -ge "$windows" ] || fail "only ${written:-0} windows written (expected at least $windows): $line"
grep -q '(equal)$' <<<"$line" || fail "the windows' samples do not add up to the samples delivered: $line"
grep -qE 'samples past the profile.s bound of max_stacks=5000 merged into \[overflow\]' "$outdir/stderr" \
  || fail "the report does not count samples past the bound"
grep -q '\[overflow\]' $(find "$outdir" -name 'window-*.collapsed') || fail "no window holds the [overflow] frame"
for f in $(find "$outdir" -name 'window-*.collapsed'); do
  head -1 "$f" | grep -qE '^# jvmkit profile: cpu, interval 1 ms, from [0-9-]+T[0-9:]+Z for [0-9.]+ s$' \
    || fail "$f does not start with the window's time: $(head -1 "$f")"
done

# Flat memory: the median RSS of the last fifth against the median of the second fifth.
n=$(wc -l <"$outdir/rss")
fifth=$((n / 5))
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
early=$(sed -n "$((fifth + 1)),$((2 * fifth))p" "$outdir/rss" | median)
late=$(tail -n "$fifth" "$outdir/rss" | median)
growth=$((late - early))
echo "RSS over $n s: second fifth median $early kB, last fifth median $late kB, growth $growth kB (limit $max_growth_kb kB)"
[ "$growth" -le "$max_growth_kb" ] || fail "resident memory grew by $growth kB"
[ $failures -eq 0 ] && echo PASS || exit 1
