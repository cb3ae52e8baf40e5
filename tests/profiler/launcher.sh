#!/usr/bin/env bash
# The jvmkit tool's launch mode (src/cli): `jvmkit --help` documents it, `jvmkit profile ... -- java ...`
# runs the command with the agent and writes the profile, and mistakes are refused with a message.
# Usage: launcher.sh LAUNCHER JAVA DEMO_CLASSES OUTDIR
set -uo pipefail
launcher=$1 java=$2 classes=$3 outdir=$4
mkdir -p "$outdir"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

help=$("$launcher" --help) || fail "--help exited non-zero"
for word in "jvmkit profile" "--event" "--interval" "--output" "--threads" "cpu" "wall" "itimer" "cycles" "pprof"; do
  grep -qF -- "$word" <<<"$help" || fail "--help does not mention $word"
done
"$launcher" --version | grep "^jvmkit [0-9]" >/dev/null || fail "--version does not say jvmkit <version>"
status_of() { "$@" >/dev/null 2>&1; echo $?; }  # usage errors: 2
[ "$(status_of "$launcher")" -eq 2 ] || fail "no command should exit with 2"
[ "$(status_of "$launcher" frobnicate)" -eq 2 ] || fail "an unknown command should exit with 2"
[ "$(status_of "$launcher" profile -o a,b.html -- "$java" -version)" -eq 2 ] || fail "a comma in the output name must be refused"
[ "$(status_of "$launcher" profile -e wall)" -eq 2 ] || fail "a missing command must be refused"
[ "$(status_of "$launcher" profile -d 5 -- "$java" -version)" -eq 2 ] || fail "-d must be refused in launch mode"
[ "$(status_of "$launcher" profile -- "$outdir/no-such-java")" -eq 127 ] || fail "a command that cannot be found: 127"

out="$outdir/launcher.collapsed"
rm -f "$out"
(cd "$outdir" && "$launcher" profile -e cpu -i 2ms -t -o launcher.collapsed -- "$java" -cp "$classes" jvmkit.demo.Demo 1) \
  2>"$outdir/launcher.stderr" || { cat "$outdir/launcher.stderr"; fail "jvmkit profile failed"; }
cat "$outdir/launcher.stderr"
[ -s "$out" ] || fail "no profile written to $out"
# The thread's root frame, then (mixed stacks, the default) its first native frames, then main.
grep -qE '^\[main tid=[0-9]+\];([^;]+;)*jvmkit\.demo\.Demo\.main;' "$out" || fail "profile lacks the thread-split demo stacks"
grep -q "cpu: per-thread CPU time every 2 ms" "$outdir/launcher.stderr" || fail "interval/event not passed to the agent"
grep -qF "to $out" "$outdir/launcher.stderr" || fail "the report does not name $out"

# A java command behind a wrapper script gets the agent through JAVA_TOOL_OPTIONS.
wrapper="$outdir/run-java.sh"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$java" >"$wrapper"
chmod +x "$wrapper"
rm -f "$outdir/wrapped.pb.gz"
(cd "$outdir" && "$launcher" profile -o wrapped.pb.gz -- "$wrapper" -cp "$classes" jvmkit.demo.Demo 1) 2>/dev/null \
  || fail "jvmkit profile through a wrapper failed"
[ -s "$outdir/wrapped.pb.gz" ] || fail "no pprof written through the wrapper"
[ $failures -eq 0 ] && echo PASS || exit 1
