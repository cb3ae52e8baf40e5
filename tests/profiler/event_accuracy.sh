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
# shellcheck source=profiled_run.sh
source "$(dirname "$0")/profiled_run.sh"
event=$7 leaves=$8 max_tvd=$9
profiled_run "$1" "$2" "$3" "$4" "$5" "$6,ann" "${@:10}"
# The event's block: every request has one outcome, few are dropped, the samples are written.
counts=$(sed -n -E "s/^jvmkit profiler: $event: samples requested ([0-9]+), delivered ([0-9]+), failed ([0-9]+), dropped ([0-9]+).*/\1 \2 \3 \4/p" "$log")
read -r requested delivered failed dropped <<<"$counts"
if [ -z "$counts" ] || [ "$requested" -ne $((delivered + failed + dropped)) ]; then
  echo "FAIL: report arithmetic: requested ${requested:-?} != delivered + failed + dropped ($counts)"
  exit 1
fi
[ "$delivered" -gt 0 ] || { echo "FAIL: no $event sample delivered"; exit 1; }
few_dropped "$dropped" "$requested"
report_has "$event: top classes (self " "wrote collapsed output"
# Every sample's leaf is a class frame (_[k]); the stacks of FRAME end in LEAF.
bad=$(grep -cv '_\[k\] [0-9]*$' "$profile" || true)
[ "$bad" -eq 0 ] || { echo "FAIL: $bad stacks without a class leaf frame (_[k])"; grep -v '_\[k\] [0-9]*$' "$profile" | head -3; exit 1; }
rules=()
[ "$leaves" = - ] || IFS=',' read -ra rules <<<"$leaves"
# By weight, at least 99 %: the JDK's own code under FRAME may wait for another lock now and then
# (one 60 us wait for an int[] monitor under waitReentrant among 1,764 samples, JDK 17,
# 2026-12-05), which is a true sample, not a misplaced one.
for rule in "${rules[@]}"; do
  frame=${rule%%=*} leaf=${rule#*=}
  with=$(grep -F "$frame" "$profile" | awk '{s += $NF} END {printf "%.0f", s}')
  right=$(grep -F "$frame" "$profile" | grep -F ";$leaf " | awk '{s += $NF} END {printf "%.0f", s}')
  echo "weight of the stacks through $frame: $with, of those ending in $leaf: $right"
  [ "$with" -gt 0 ] && [ $((right * 100)) -ge $((with * 99)) ] ||
    { echo "FAIL: stacks through $frame must end in $leaf (99 % of their weight)"; exit 1; }
done
compare_with_truth "$max_tvd"
