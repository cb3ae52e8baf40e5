#!/usr/bin/env bash
# Several events in one run (event=cpu,alloc,lock): collapsed output is a file per event, named
# after the given file; the report has a block per event; pprof holds every event's sample types
# in one profile (read by `go tool pprof`); the HTML page holds a flame graph per event, and
# Debian's headless Chromium shows the one the URL asks for (#event=lock), searchable.
# Usage: multi_events.sh JAVA AGENT CLASSES OUTDIR
set -uo pipefail
java=$1 agent=$2 classes=$3 outdir=$4
go=${GO:-$(command -v go || echo /usr/bin/go)}
mkdir -p "$outdir"
rm -f "$outdir"/multi*
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() {  # run FILE: LockShares for 2 s with cpu, alloc and lock, the report in $outdir/multi.stderr
  "$java" "-agentpath:$agent=event=cpu,alloc,lock,interval=1ms,alloc=16k,file=$1" -cp "$classes" \
    jvmkit.test.profiler.LockShares 2 "$outdir/multi.truth" 2>"$outdir/multi.stderr" >/dev/null
}

run "$outdir/multi.collapsed" || { cat "$outdir/multi.stderr"; fail "the profiled program failed"; exit 1; }
cat "$outdir/multi.stderr"
for e in cpu alloc lock; do
  [ -s "$outdir/multi.$e.collapsed" ] || fail "no non-empty multi.$e.collapsed"
  grep -qF "wrote collapsed output" "$outdir/multi.stderr" || fail "no output line"
  grep -qF "to $outdir/multi.$e.collapsed" "$outdir/multi.stderr" || fail "the report does not name multi.$e.collapsed"
done
[ -e "$outdir/multi.collapsed" ] && fail "multi.collapsed written besides the per-event files"
grep -q "^jvmkit profiler: cpu: per-thread CPU time" "$outdir/multi.stderr" || fail "no cpu block in the report"
for e in alloc lock; do
  grep -q "^jvmkit profiler: $e: samples requested [0-9]*, delivered [1-9]" "$outdir/multi.stderr" || fail "no $e block with samples"
done
# Each file holds its event: class leaves (_[k]) only in alloc and lock, lock weights in ns.
grep -q 'Object_\[k\]\|NonfairSync_\[k\]' "$outdir/multi.lock.collapsed" 2>/dev/null ||
  grep -q 'java.lang.Object \|NonfairSync ' "$outdir/multi.lock.collapsed" || fail "multi.lock.collapsed lacks the lock classes"
grep -q 'LockShares.waitMonitor' "$outdir/multi.lock.collapsed" || fail "multi.lock.collapsed lacks waitMonitor"
grep -q 'java.lang.Object \|NonfairSync ' "$outdir/multi.cpu.collapsed" && fail "multi.cpu.collapsed has lock class frames"

run "$outdir/multi.html" || fail "the html run failed"
for e in cpu alloc lock; do grep -q "\"name\":\"$e\"" "$outdir/multi.html" || fail "multi.html has no $e flame graph"; done
chromium=${CHROMIUM:-/usr/bin/chromium}
profile_dir=$(mktemp -d)
body=$(timeout 90 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
  --user-data-dir="$profile_dir" --window-size=1400,900 --dump-dom "file://$outdir/multi.html#event=lock&search=waitMonitor" \
  2>/dev/null | grep -o '<body[^>]*>')
rm -rf "$profile_dir"
echo "rendered: $body"
grep -q 'data-status="ok"' <<<"$body" || fail "the page did not render"
grep -q 'data-errors' <<<"$body" && fail "script error: $body"
grep -q 'data-event="lock"' <<<"$body" || fail "#event=lock did not select the lock flame graph"
grep -q 'data-matched="[1-9]' <<<"$body" || fail "no lock wait under waitMonitor in the lock flame graph"

run "$outdir/multi.pb.gz" || fail "the pprof run failed"
export HOME=${HOME:-$outdir} GOCACHE="$outdir/gocache" GOTOOLCHAIN=local
for index in samples cpu alloc_objects alloc_space contentions delay; do
  top=$(cd "$outdir" && timeout 120 "$go" tool pprof -sample_index=$index -top "$outdir/multi.pb.gz" 2>&1) ||
    { echo "$top" | head; fail "go tool pprof -sample_index=$index failed"; continue; }
  echo "$top" | sed -n '1,7p'
  case $index in
    contentions|delay) grep -q 'LockShares.waitMonitor\|java.lang.Object' <<<"$top" || fail "$index: no lock waits" ;;
    cpu|samples) grep -q 'java.lang.Object$' <<<"$top" && fail "$index: lock classes among cpu samples" ;;
  esac
done
[ $failures -eq 0 ] && echo PASS || exit 1
