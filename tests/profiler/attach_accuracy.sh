#!/usr/bin/env bash
# An attached profiler is as exact as one started with the JVM: a workload with known truth runs
# without any agent; `jvmkit profile -d 3` attaches after it has warmed up, and the profile of
# those 3 seconds is compared with the truth (the workload keeps fixed shares, so any window has
# them). The report the tool prints must add up like the one at JVM exit.
# Usage: attach_accuracy.sh JAVA JVMKIT CLASSES OUTDIR NAME MAX_TVD [JVM args...] MAIN SECONDS @TRUTH@
set -uo pipefail
java=$1 jvmkit=$2 classes=$3 outdir=$4 name=$5 max_tvd=$6
shift 6
mkdir -p "$outdir"
profile="$outdir/$name.collapsed" truth="$outdir/$name.truth" log="$outdir/$name.report"
rm -f "$profile" "$truth"
args=()
for a in "$@"; do args+=("${a//@TRUTH@/$truth}"); done
"$java" -cp "$classes" "${args[@]}" >"$outdir/$name.stdout" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
sleep 2  # warmed up: the hot code is compiled before the profiler arrives
"$jvmkit" profile -e cpu -i 1ms -d 3 -o "$profile" "$pid" 2>"$log" || { cat "$log"; echo "FAIL: jvmkit profile failed"; exit 1; }
cat "$log"
wait "$pid" || { cat "$outdir/$name.stdout"; echo "FAIL: the workload failed"; exit 1; }
counts=$(sed -n -E 's/.*samples requested ([0-9]+), delivered ([0-9]+), failed ([0-9]+), dropped ([0-9]+) \(signals [0-9]+, on non-Java threads ([0-9]+).*/\1 \2 \3 \4 \5/p' "$log")
read -r requested delivered failed dropped not_java <<<"$counts"
if [ -z "$counts" ] || [ "$requested" -ne $((delivered + failed + dropped + not_java)) ]; then
  echo "FAIL: report arithmetic: requested ${requested:-?} != delivered + failed + dropped + non-Java ($counts)"
  exit 1
fi
[ "$delivered" -ge 1500 ] || { echo "FAIL: only $delivered traces in 3 s at 1 ms"; exit 1; }
exec "$java" -cp "$classes" jvmkit.test.profiler.CheckProfile "$profile" "$truth" "$max_tvd"
