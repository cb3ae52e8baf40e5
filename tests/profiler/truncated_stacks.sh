#!/usr/bin/env bash
# depth=N: a stack deeper than N keeps its N frames nearest the leaf under a [truncated] root frame,
# and the report counts such samples; a stack within N has none.
# Usage: truncated_stacks.sh JAVA AGENT CLASSES OUTDIR
set -uo pipefail
java=$1 agent=$2 classes=$3 outdir=$4
mkdir -p "$outdir"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
out="$outdir/cut.collapsed"
"$java" -Xss16m "-agentpath:$agent=interval=1ms,depth=300,file=$out" -cp "$classes" \
  jvmkit.test.profiler.DeepRecursion 2 "$outdir/truth" 1000 >/dev/null 2>"$outdir/cut.stderr" || fail "the JVM failed"
cat "$outdir/cut.stderr"
deep=$(grep -c 'DeepRecursion.deep[AB]' "$out")
cut=$(grep 'DeepRecursion.deep[AB]' "$out" | grep -c '^\[truncated\];')
frames=$(grep 'DeepRecursion.deep[AB]' "$out" | head -1 | awk -F';' '{print NF}')
echo "depth=300, recursion 1000: $cut of $deep leaf stacks start with [truncated]; $frames frames each"
[ "$deep" -gt 0 ] && [ "$cut" -eq "$deep" ] || fail "stacks deeper than depth=300 without [truncated]"
[ "$frames" = 301 ] || fail "a cut stack has $frames frames, not 300 and [truncated]"
grep -qE 'jvmkit profiler: [0-9]+ samples deeper than depth=300 frames, cut at the root end \(\[truncated\]\)' \
  "$outdir/cut.stderr" || fail "the report does not count the cut samples"
out="$outdir/whole.collapsed"
# depth counts every frame: with mixed stacks (the default) also the thread's first native frames
# below main and the JVM's code above the leaf (the interpreter resolving a call: up to 25 frames,
# measured 2026-12-07), so 1,200 leaves room above the recursion's 1,000 Java frames.
"$java" -Xss16m "-agentpath:$agent=interval=1ms,depth=1200,file=$out" -cp "$classes" \
  jvmkit.test.profiler.DeepRecursion 1 "$outdir/truth" 1000 >/dev/null 2>"$outdir/whole.stderr" || fail "the JVM failed"
if grep -q '\[truncated\]' "$out" "$outdir/whole.stderr"; then fail "depth=1200 cut a 1000-frame recursion"; fi
# Whole stacks: main, below it (mixed stacks, the default) the thread's first native frames.
grep -qE '^([^;]+;)*jvmkit\.test\.profiler\.DeepRecursion\.main;.*DeepRecursion\.deep[AB]' "$out" || fail "whole stacks do not reach main"
[ $failures -eq 0 ] && echo PASS || exit 1
