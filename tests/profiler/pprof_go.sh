#!/usr/bin/env bash
# The pprof output is read by `go tool pprof` (Debian's golang-go): -top lists the demo's methods
# (every node) with their CPU time, as the end-of-run report counts it, and -traces shows whole
# stacks with source lines.
# Usage: pprof_go.sh JAVA AGENT DEMO_CLASSES OUTDIR
set -uo pipefail
java=$1 agent=$2 classes=$3 outdir=$4
go=${GO:-$(command -v go || echo /usr/bin/go)}
[ -x "$go" ] || { echo "FAIL: go not found (scripts/setup.sh installs Debian's golang-go)"; exit 1; }
mkdir -p "$outdir"
profile="$outdir/demo.pb.gz"
rm -f "$profile"
report="$outdir/demo.stderr"
"$java" "-agentpath:$agent=interval=1ms,file=$profile" -cp "$classes" jvmkit.demo.Demo 2 2>"$report" || {
  cat "$report"; exit 1; }
cat "$report"
export HOME=${HOME:-$outdir} GOCACHE="$outdir/gocache" GOTOOLCHAIN=local  # never download a toolchain
top=$(cd "$outdir" && timeout 120 "$go" tool pprof -top -nodefraction=0 -nodecount=100000 "$profile" 2>&1) || { echo "$top"; echo "FAIL: go tool pprof -top failed"; exit 1; }
echo "$top" | head -20
failures=0
grep -q '^Type: cpu' <<<"$top" || { echo "FAIL: sample type is not cpu"; failures=$((failures + 1)); }
for m in jvmkit.demo.Demo.countPrimes java.lang.StringLatin1.hashCode; do
  grep -q "$m" <<<"$top" || { echo "FAIL: $m missing from -top"; failures=$((failures + 1)); }
done
# pprof carries the numbers: countPrimes' flat share in -top is its share of self samples in the
# profiler's own end-of-run report of the same run (within 2 points: rounding, and the report's
# count of samples the pprof writer may merge differently). Its share of the CPU itself moves with
# the machine's load (JIT warm-up takes more of a short run on a busy machine); accuracy proper is
# tested on the collapsed output by the accuracy_* tests.
share=$(awk '/jvmkit.demo.Demo.countPrimes$/ {gsub("%","",$2); print $2}' <<<"$top" | head -1)
reported=$(awk '/%  jvmkit.demo.Demo.countPrimes$/ {gsub("%","",$2); print $2}' "$report" | head -1)
echo "countPrimes: ${share:-?}% flat in pprof, ${reported:-?}% of self samples in the report"
if [ -z "$share" ] || [ -z "$reported" ] ||
  ! awk -v a="$share" -v b="$reported" 'BEGIN {d = a - b; exit !(a > 0 && d <= 2 && d >= -2)}'; then
  echo "FAIL: countPrimes' flat share in pprof (${share:-?}%) is not the report's (${reported:-?}%)"
  failures=$((failures + 1))
fi
traces=$(cd "$outdir" && timeout 120 "$go" tool pprof -traces -lines "$profile" 2>&1)
grep -q 'jvmkit.demo.Demo.countPrimes Demo.java:[0-9]' <<<"$traces" || {
  echo "$traces" | head -30; echo "FAIL: no source lines in traces"; failures=$((failures + 1)); }
[ $failures -eq 0 ] && echo PASS || exit 1
