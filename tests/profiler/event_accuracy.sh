#!/usr/bin/env bash
# Runs a workload with known truth under the profiler sampling a JVM event (alloc or lock,
# collapsed output with frame types), checks the event's block of the end-of-run report, the leaf
# frames (the allocated or locked class), then compares the profile with the truth the workload
# wrote (CheckProfile).
# Usage: event_accuracy.sh JAVA AGENT CLASSES OUTDIR NAME AGENT_OPTIONS EVENT LEAVES MAX_TVD [JVM args...] MAIN [args...]
#   LEAVES: "FRAME=LEAF,FRAME=LEAF...": every stack with a frame containing FRAME has the leaf frame
#   LEAF (e.g. waitMonitor=java.lang.Object_[k]); "-" for none.
# In the program's arguments, @TRUTH@ stands for the truth file.
set -euo pipefail
java=$1 agent=$2 classes=$3 outdir=$4 name=$5 agent_options=$6 event=$7 leaves=$8 max_tvd=$9
shift 9
mkdir -p "$outdir"
profile="$outdir/$name.collapsed"
truth="$outdir/$name.truth"
log="$outdir/$name.stderr"
rm -f "$profile" "$truth"
args=()
for a in "$@"; do args+=("${a//@TRUTH@/$truth}"); done

echo "+ $java -agentpath:$agent=$agent_options,ann,file=$profile -cp $classes ${args[*]}"
if ! "$java" "-agentpath:$agent=$agent_options,ann,file=$profile" -cp "$classes" "${args[@]}" 2>"$log"; then
  cat "$log"
  echo "FAIL: the profiled program failed"
  exit 1
fi
cat "$log"
# The event's block: every request has one outcome, few are dropped, the samples are written.
counts=$(sed -n -E "s/^jvmkit profiler: $event: samples requested ([0-9]+), delivered ([0-9]+), failed ([0-9]+), dropped ([0-9]+).*/\1 \2 \3 \4/p" "$log")
read -r requested delivered failed dropped <<<"$counts"
if [ -z "$counts" ] || [ "$requested" -ne $((delivered + failed + dropped)) ]; then
  echo "FAIL: report arithmetic: requested ${requested:-?} != delivered + failed + dropped ($counts)"
  exit 1
fi
[ "$delivered" -gt 0 ] || { echo "FAIL: no $event sample delivered"; exit 1; }
if [ "$dropped" -gt $((requested / 100)) ]; then
  echo "FAIL: more than 1% of the requests dropped ($dropped of $requested)"
  exit 1
fi
for expected in "$event: top classes (self " "wrote collapsed output"; do
  grep -qF "$expected" "$log" || { echo "FAIL: the report on stderr lacks '$expected'"; exit 1; }
done
# Every sample's leaf is a class frame (_[k]); the stacks of FRAME end in LEAF.
bad=$(grep -cv '_\[k\] [0-9]*$' "$profile" || true)
[ "$bad" -eq 0 ] || { echo "FAIL: $bad stacks without a class leaf frame (_[k])"; grep -v '_\[k\] [0-9]*$' "$profile" | head -3; exit 1; }
rules=()
[ "$leaves" = - ] || IFS=',' read -ra rules <<<"$leaves"
for rule in "${rules[@]}"; do
  frame=${rule%%=*} leaf=${rule#*=}
  with=$(grep -cF "$frame" "$profile" || true)
  right=$(grep -F "$frame" "$profile" | grep -cF ";$leaf " || true)
  echo "stacks through $frame: $with, ending in $leaf: $right"
  [ "$with" -gt 0 ] && [ "$with" -eq "$right" ] || { echo "FAIL: stacks through $frame must end in $leaf"; exit 1; }
done
exec "$java" -cp "$classes" jvmkit.test.profiler.CheckProfile "$profile" "$truth" "$max_tvd"
