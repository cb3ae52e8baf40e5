#!/usr/bin/env bash
# The views built on time and on two profiles, in a real browser (Debian's Chromium driven by
# Puppeteer, tests/browser/views.js), and `jvmkit convert`'s options on a real recording:
#   1. PhaseShift runs phaseOne, then phaseTwo from a moment it prints; its recording, converted to
#      a heatmap page: a range dragged after the switch shows phaseTwo only, one before it phaseOne
#      only, and a base range before it (Shift+drag) makes a diff where phaseTwo grew (red).
#   2. The same recording through convert's filters: --to (a UTC time), --from (seconds),
#      --include, --exclude, --threads, --reverse, --total; a recording cut in half converts what
#      precedes the cut and names the byte; bad options are refused by name.
#   3. A profile of known truth (truth.collapsed): the reverse view and hiding a frame's subtree.
#   4. jvmkit diff of two collapsed profiles, and of a pprof base against collapsed stacks: each
#      frame's change in share, coloured.
# Screenshots of every view go to OUTDIR/shots.
# Usage: time_views.sh JAVA AGENT JVMKIT CLASSES SOURCE_DIR OUTDIR
set -uo pipefail
java=$1 agent=$2 jvmkit=$3 classes=$4 src=$5 out=$6
rm -rf "$out" && mkdir -p "$out/shots"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
browser() { CHROMIUM=${CHROMIUM:-/usr/bin/chromium} node "$src/tests/browser/views.js" "$@" || fail "the browser checks above"; }
[ -d "$src/tests/browser/node_modules/puppeteer-core" ] || { echo "FAIL: Puppeteer is missing (scripts/setup.sh installs it)"; exit 1; }

# --- 1. A recording whose workload changes phase at a known moment ---
"$java" "-agentpath:$agent=event=cpu,interval=1ms,file=$out/phases.jfr" -cp "$classes" \
  jvmkit.test.profiler.PhaseShift 3 3 >"$out/phases.stdout" 2>"$out/phases.stderr" || { cat "$out/phases.stderr"; fail "PhaseShift failed"; }
switch_ms=$(sed -n 's/^switch at //p' "$out/phases.stdout")
[ -n "$switch_ms" ] || { fail "PhaseShift did not say when it switched"; exit 1; }
# The main thread's samples only: the shares the page compares are then the workload's, not diluted
# by the JIT compiler threads (shown as stacks by default), which compile phaseTwo after the switch.
"$jvmkit" convert "$out/phases.jfr" --threads main -o "$out/phases.heatmap.html" 2>"$out/convert.log" || { cat "$out/convert.log"; fail "convert to a heatmap failed"; }
cat "$out/convert.log"
browser heatmap "$out/phases.heatmap.html" "$switch_ms" "$out/shots"

# --- 2. convert's options on the recording ---
convert() {  # convert NAME [options...]: the recording's cpu samples as collapsed stacks in $out/NAME.collapsed
  local name=$1; shift
  "$jvmkit" convert "$out/phases.jfr" -o "$out/$name.collapsed" --event cpu "$@" 2>"$out/$name.log"
}
samples_of() { awk -v m="$2" '$0 ~ m {s += $NF} END {printf "%.0f\n", s}' "$out/$1.collapsed"; }
switch_utc=$(date -u -d "@$((switch_ms / 1000)).$(printf '%03d' $((switch_ms % 1000)))" +%Y-%m-%dT%H:%M:%S.%3NZ)
convert before --to "$switch_utc" || fail "convert --to failed: $(cat "$out/before.log")"
# (At least 100 samples of a phase: 3 s at 1 ms give 3,000 on an idle machine, fewer on a busy one.)
[ "$(samples_of before phaseOne)" -ge 100 ] || fail "--to the switch: phaseOne has $(samples_of before phaseOne) samples"
[ "$(samples_of before phaseTwo)" -le 5 ] || fail "--to the switch: phaseTwo has $(samples_of before phaseTwo) samples"
convert all || fail "convert failed: $(cat "$out/all.log")"
convert after --from "$switch_utc" || fail "convert --from failed"
[ "$(samples_of after phaseTwo)" -ge 100 ] && [ "$(samples_of after phaseOne)" -le 5 ] ||
  fail "--from the switch: phaseTwo $(samples_of after phaseTwo), phaseOne $(samples_of after phaseOne)"
convert early --to 1.5 || fail "convert --to 1.5 failed"
[ "$(samples_of early '.')" -lt "$(samples_of before '.')" ] || fail "--to 1.5 (seconds) kept as much as --to the switch"
convert two --include 'phaseTwo$' || fail "convert --include failed"
[ "$(samples_of two '.')" -eq "$(samples_of two phaseTwo)" ] && [ "$(samples_of two '.')" -gt 0 ] || fail "--include kept stacks without phaseTwo"
convert not_two --exclude 'phaseTwo$' || fail "convert --exclude failed"
[ "$(samples_of not_two phaseTwo)" -eq 0 ] && [ $(( $(samples_of not_two '.') + $(samples_of two '.') )) -eq "$(samples_of all '.')" ] ||
  fail "--include and --exclude do not split the samples"
convert main --threads '^main$' || fail "convert --threads failed"
[ "$(samples_of main phaseTwo)" -eq "$(samples_of all phaseTwo)" ] || fail "--threads main lost main's samples"
convert nobody --threads 987654321
grep -q "no samples left after the filters" "$out/nobody.log" || fail "--threads of no thread: $(cat "$out/nobody.log")"
convert reversed --reverse || fail "convert --reverse failed"
grep -q '^jvmkit.test.profiler.PhaseShift.phaseTwo;jvmkit.test.profiler.PhaseShift.main' "$out/reversed.collapsed" ||
  fail "--reverse: no stack starts at the leaf phaseTwo"
convert total --total || fail "convert --total failed"
awk '$NF % 1000000 != 0 {bad = 1} END {exit bad}' "$out/total.collapsed" || fail "--total: cpu weights are not multiples of the 1 ms interval"
[ "$(samples_of total '.')" -eq $(( $(samples_of all '.') * 1000000 )) ] || fail "--total: not samples x 1 ms"
# A recording cut in half: what precedes the cut is converted, the error names the byte.
size=$(stat -c %s "$out/phases.jfr")
head -c $((size / 2)) "$out/phases.jfr" >"$out/cut.jfr"
"$jvmkit" convert "$out/cut.jfr" -o "$out/cut.collapsed" 2>"$out/cut.log"
rc=$?
cat "$out/cut.log"
[ $rc -eq 1 ] || fail "a cut recording: exit status $rc, not 1"
grep -q "byte [0-9]" "$out/cut.log" || fail "a cut recording: the error names no byte"
[ -s "$out/cut.collapsed" ] || fail "a cut recording: nothing converted"
"$jvmkit" convert "$out/phases.jfr" -o "$out/x.html" --from soon 2>"$out/bad.log"
[ $? -eq 2 ] && grep -q "^jvmkit: --from=soon: not a time" "$out/bad.log" || fail "a bad --from: $(cat "$out/bad.log")"
"$jvmkit" convert "$out/missing.jfr" -o "$out/x.html" 2>"$out/missing.log"
[ $? -eq 1 ] && grep -q "missing.jfr" "$out/missing.log" || fail "a missing input: $(cat "$out/missing.log")"

# --- 3. Reverse and hide, on a profile of known truth ---
printf 'main;a;leaf 60\nmain;b;leaf 30\nmain;b;other 10\n' >"$out/truth.collapsed"
"$jvmkit" convert "$out/truth.collapsed" -o "$out/views.html" 2>/dev/null || fail "convert of collapsed stacks failed"
browser views "$out/views.html" "$out/shots"

# --- 4. diff ---
printf 'main;a 50\nmain;b 50\n' >"$out/diff_base.collapsed"
printf 'main;a 80\nmain;b 10\nmain;c 10\n' >"$out/diff_new.collapsed"
"$jvmkit" diff "$out/diff_base.collapsed" "$out/diff_new.collapsed" -o "$out/diff.html" 2>"$out/diff.log" || { cat "$out/diff.log"; fail "jvmkit diff failed"; }
browser diff "$out/diff.html" "$out/shots"
# The same diff from a pprof base (jvmkit convert writes it from the collapsed stacks).
"$jvmkit" convert "$out/diff_base.collapsed" -o "$out/diff_base.pb.gz" 2>/dev/null || fail "convert to pprof failed"
"$jvmkit" diff "$out/diff_base.pb.gz" "$out/diff_new.collapsed" -o "$out/diff_pprof.html" 2>"$out/diff_pprof.log" ||
  { cat "$out/diff_pprof.log"; fail "jvmkit diff of a pprof base failed"; }
mkdir -p "$out/shots_pprof"
browser diff "$out/diff_pprof.html" "$out/shots_pprof"

echo "screenshots: $(ls "$out/shots" | tr '\n' ' ')"
[ "$failures" -eq 0 ] && echo PASS
exit $((failures > 0))
