#!/usr/bin/env bash
# Runs a workload with known truth under the profiler (collapsed output), checks the end-of-run
# report on stderr, then compares the profile with the truth the workload wrote (CheckProfile).
# Usage: run_accuracy.sh JAVA AGENT CLASSES OUTDIR NAME AGENT_OPTIONS MAX_TVD [JVM args...] MAIN [args...]
# In the program's arguments, @TRUTH@ stands for the truth file.
set -euo pipefail
java=$1 agent=$2 classes=$3 outdir=$4 name=$5 agent_options=$6 max_tvd=$7
shift 7
mkdir -p "$outdir"
profile="$outdir/$name.collapsed"
truth="$outdir/$name.truth"
log="$outdir/$name.stderr"
rm -f "$profile" "$truth"
args=()
for a in "$@"; do args+=("${a//@TRUTH@/$truth}"); done

echo "+ $java -agentpath:$agent=$agent_options,file=$profile -cp $classes ${args[*]}"
if ! "$java" "-agentpath:$agent=$agent_options,file=$profile" -cp "$classes" "${args[@]}" 2>"$log"; then
  cat "$log"
  echo "FAIL: the profiled program failed"
  exit 1
fi
cat "$log"
# The report: counts, top methods, where the output went.
for expected in "samples requested" "delivered" "failed" "dropped" "top methods (self samples):" \
                "wrote collapsed output"; do
  grep -qF "$expected" "$log" || { echo "FAIL: the report on stderr lacks '$expected'"; exit 1; }
done
grep -qF "$profile" "$log" || { echo "FAIL: the report does not say where the output went"; exit 1; }
# Every request has one outcome: requested = delivered + failed + dropped + on non-Java threads.
counts=$(sed -n -E 's/.*samples requested ([0-9]+), delivered ([0-9]+), failed ([0-9]+), dropped ([0-9]+) \(signals [0-9]+, on non-Java threads ([0-9]+).*/\1 \2 \3 \4 \5/p' "$log")
read -r requested delivered failed dropped not_java <<<"$counts"
if [ -z "$counts" ] || [ "$requested" -ne $((delivered + failed + dropped + not_java)) ]; then
  echo "FAIL: report arithmetic: requested ${requested:-?} != delivered + failed + dropped + non-Java ($counts)"
  exit 1
fi
if [ "$dropped" -gt $((requested / 100)) ]; then
  echo "FAIL: more than 1% of the requests dropped ($dropped of $requested)"
  exit 1
fi
exec "$java" -cp "$classes" jvmkit.test.profiler.CheckProfile "$profile" "$truth" "$max_tvd"
