#!/usr/bin/env bash
# The pprof output is read by `go tool pprof` (Debian's golang-go): -top lists the demo's hot
# methods with CPU time, and -traces shows whole stacks with source lines.
# Usage: pprof_go.sh JAVA AGENT DEMO_CLASSES OUTDIR
set -uo pipefail
java=$1 agent=$2 classes=$3 outdir=$4
go=${GO:-$(command -v go || echo /usr/bin/go)}
[ -x "$go" ] || { echo "FAIL: go not found (scripts/setup.sh installs Debian's golang-go)"; exit 1; }
mkdir -p "$outdir"
profile="$outdir/demo.pb.gz"
rm -f "$profile"
"$java" "-agentpath:$agent=interval=1ms,file=$profile" -cp "$classes" jvmkit.demo.Demo 2 || exit 1
export HOME=${HOME:-$outdir} GOCACHE="$outdir/gocache" GOTOOLCHAIN=local  # never download a toolchain
top=$(cd "$outdir" && timeout 120 "$go" tool pprof -top "$profile" 2>&1) || { echo "$top"; echo "FAIL: go tool pprof -top failed"; exit 1; }
echo "$top" | head -20
failures=0
grep -q '^Type: cpu' <<<"$top" || { echo "FAIL: sample type is not cpu"; failures=$((failures + 1)); }
for m in jvmkit.demo.Demo.countPrimes java.lang.StringLatin1.hashCode; do
  grep -q "$m" <<<"$top" || { echo "FAIL: $m missing from -top"; failures=$((failures + 1)); }
done
# countPrimes gets half of the demo's wall time (and so roughly half its CPU time; JIT warm-up and a
# loaded machine move that a little): its flat share must be 30-75%. Accuracy proper is tested on
# the collapsed output by the accuracy_* tests; this checks that pprof carries the numbers.
share=$(awk '/jvmkit.demo.Demo.countPrimes$/ {gsub("%","",$2); print int($2)}' <<<"$top" | head -1)
if [ -z "$share" ] || [ "$share" -lt 30 ] || [ "$share" -gt 75 ]; then
  echo "FAIL: countPrimes flat share ${share:-?}% not within 30-75%"; failures=$((failures + 1))
fi
traces=$(cd "$outdir" && timeout 120 "$go" tool pprof -traces -lines "$profile" 2>&1)
grep -q 'jvmkit.demo.Demo.countPrimes Demo.java:[0-9]' <<<"$traces" || {
  echo "$traces" | head -30; echo "FAIL: no source lines in traces"; failures=$((failures + 1)); }
[ $failures -eq 0 ] && echo PASS || exit 1
