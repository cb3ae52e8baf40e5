#!/usr/bin/env bash
# Continuous mode with bounded memory: a program that makes new distinct stacks all the time,
# profiled in one-second windows with a small profile bound. Checks that every window is written
# (keep= leaves the last 3), that the samples in the windows add up to the samples delivered, that
# the bound is reached and counted ([overflow]; in every kept window with the samples to reach it),
# and that the JVM's resident memory stays flat after the first windows (the heap is fixed and
# pre-touched, so what grows would be the agent's).
# The JVM's own warm-up (JIT compilation, class data) is CPU work: a busy host stretches it over
# more wall time (the JVM got 5-10 % of a CPU at load 15-20, and grew 15-76 MB between the second
# and last fifth of a wall-clock run). So the program runs WINDOWS + 1 seconds of its CPU time, and
# the fifths are of that CPU time: each resident-memory sample is placed by the process's CPU time
# when it was taken.
# Random recursion only, no new hidden classes: those grow the JVM's own memory (metaspace, code)
# by about 33 kB/s with or without the agent (measured 2026-12-03), which would hide the agent's.
# Nor late JIT compilations: the program looks its MXBean up once (a lookup per check ran stream
# pipelines that C2 compiled seconds in, and glibc kept the compiler's freed arenas resident: +4 MB
# steps at 40 % of a run without the agent). Measured 2026-12-05 with that: growth -312..+452 kB
# over 9 runs on JDK 17 and 25 with the agent, against +48 kB..+5.4 MB before.
# Usage: continuous_memory.sh JAVA AGENT CLASSES OUTDIR WINDOWS MAX_GROWTH_KB
set -uo pipefail
java=$1 agent=$2 classes=$3 outdir=$4 windows=$5 max_growth_kb=$6
rm -rf "$outdir" && mkdir -p "$outdir"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$java" -Xms256m -Xmx256m -XX:+AlwaysPreTouch \
  "-agentpath:$agent=interval=1ms,loop=1s,keep=3,max_stacks=5000,file=$outdir/window-%p-%t.collapsed" \
  -cp "$classes" jvmkit.test.profiler.DistinctStacks "$((windows + 1))cpu" 0 >"$outdir/stdout" 2>"$outdir/stderr" &
pid=$!
# Five times a second while it runs: the process's CPU time (clock ticks) and resident memory (kB).
# A fifth of a short run then holds about ten samples, so that one sample taken while the JIT
# compiler's arenas are briefly large does not move the fifth's median.
: >"$outdir/rss"
while kill -0 "$pid" 2>/dev/null; do
  sample=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null)" "$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
  [[ "$sample" =~ ^[0-9]+\ [0-9]+$ ]] && echo "$sample" >>"$outdir/rss"
  sleep 0.2
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
# Every kept window with 200 samples or more reached the bound: each sample's stack is 60-120
# frames deep (20-40 random calls of three frames each), diverging from the others within its
# first levels, so it adds 40 or more call-tree nodes, and 125 samples fill 5,000. A busy host gives
# a window fewer samples (65 at load 15: about at the bound), the run as many in all.
for f in $(find "$outdir" -name 'window-*.collapsed'); do
  n=$(awk '!/^#/ {n += $NF} END {print n + 0}' "$f")
  if grep -q '\[overflow\]' "$f"; then echo "$(basename "$f"): $n samples, the bound reached"
  elif [ "$n" -ge 200 ]; then fail "$(basename "$f") has $n samples but no [overflow] frame"
  else echo "$(basename "$f"): $n samples, too few to reach the bound"; fi
done
for f in $(find "$outdir" -name 'window-*.collapsed'); do
  head -1 "$f" | grep -E '^# jvmkit profile: cpu, interval 1 ms, from [0-9-]+T[0-9:]+Z for [0-9.]+ s$' >/dev/null \
    || fail "$f does not start with the window's time: $(head -1 "$f")"
done

# Flat memory: the lowest RSS of the last fifth of the CPU time against the median of the second
# fifth. What the agent kept would raise every late sample; the JVM's own transient memory (the JIT
# compiler's arenas, freed after each compilation) raises single samples, and the lowest one of the
# last fifth leaves those out.
n=$(wc -l <"$outdir/rss")
total=$(tail -1 "$outdir/rss" | cut -d' ' -f1)
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
lowest() { sort -n | head -1; }
# in_fifths FROM TO: the RSS samples taken when the CPU time was in (FROM/5, TO/5] of the total.
in_fifths() { awk -v t="$total" -v a="$1" -v b="$2" '$1 * 5 > a * t && $1 * 5 <= b * t {print $2}' "$outdir/rss"; }
early=$(in_fifths 1 2 | median) early_n=$(in_fifths 1 2 | wc -l)
late=$(in_fifths 4 5 | lowest) late_n=$(in_fifths 4 5 | wc -l)
growth=$((late - early))
echo "RSS: $n samples over $total ticks of CPU time: median of the second fifth of the CPU time $early kB" \
  "($early_n samples), lowest of the last fifth $late kB ($late_n samples), growth $growth kB (limit $max_growth_kb kB)"
[ "$early_n" -ge 1 ] && [ "$late_n" -ge 1 ] || fail "too few memory samples in a fifth of the CPU time"
[ "$growth" -le "$max_growth_kb" ] || fail "resident memory grew by $growth kB"
[ $failures -eq 0 ] && echo PASS || exit 1
