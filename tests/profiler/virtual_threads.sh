#!/usr/bin/env bash
# Virtual threads under event=cpu,lock (JDK 25): the VirtualMix workload (10,000 virtual threads
# running three task kinds, then virtual threads waiting for a monitor, a ReentrantLock and, pinned
# in a class initializer, another ReentrantLock) writes the truth of both events. Checks, all run
# before the verdict:
#   - the lock event's block: every request has one outcome, at most 1 % dropped;
#   - cpu: the shares of the three task kinds (CheckProfile, total variation <= MAX_TVD);
#   - lock: the wait shares by call site (CheckProfile, <= MAX_TVD), no Thread.sleep among them, and
#     the lock classes as leaf frames;
#   - both: every stack through enterSpecial has the virtual thread's frames above it, and by
#     default no stack has enterSpecial or the carrier's frames (CheckVirtualStacks --no-carrier).
# Usage: virtual_threads.sh JAVA AGENT CLASSES OUTDIR MAX_TVD ITERATIONS_PER_TASK LOCK_SECONDS
set -euo pipefail
# shellcheck source=profiled_run.sh
source "$(dirname "$0")/profiled_run.sh"
max_tvd=$5
profiled_run "$1" "$2" "$3" "$4" virtual_threads "event=cpu,lock,interval=1ms,ann" \
  jvmkit.test.profiler21.VirtualMix @TRUTH@.cpu @TRUTH@.lock "$6" "$7"
cpu_profile="${profile%.collapsed}.cpu.collapsed"
lock_profile="${profile%.collapsed}.lock.collapsed"
failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}

counts=$(sed -n -E "s/^jvmkit profiler: lock: samples requested ([0-9]+), delivered ([0-9]+), failed ([0-9]+), dropped ([0-9]+).*/\1 \2 \3 \4/p" "$log")
read -r requested delivered failed_traces dropped <<<"$counts"
if [ -z "$counts" ] || [ "$requested" -ne $((delivered + failed_traces + dropped)) ]; then
  fail "lock report arithmetic: requested ${requested:-?} != delivered + failed + dropped ($counts)"
elif [ "$dropped" -gt $((requested / 100)) ]; then
  fail "more than 1% of the lock requests dropped ($dropped of $requested)"
fi

echo "--- cpu: task shares"
"$java" -cp "$classes" jvmkit.test.profiler.CheckProfile "$cpu_profile" "$truth.cpu" "$max_tvd" || fail "cpu shares"
echo "--- lock: wait shares"
"$java" -cp "$classes" jvmkit.test.profiler.CheckProfile "$lock_profile" "$truth.lock" "$max_tvd" || fail "lock shares"
# The lock class is the leaf of a wait's stack (99 % of the weight: the JDK's code under a site may
# wait for another lock now and then).
for rule in "waitMonitor=java.lang.Object_[k]" "waitReentrant=java.util.concurrent.locks.ReentrantLock\$NonfairSync_[k]" \
  "waitPinned=java.util.concurrent.locks.ReentrantLock\$NonfairSync_[k]"; do
  frame=${rule%%=*} leaf=${rule#*=}
  with=$({ grep -F "VirtualMix.$frame" "$lock_profile" || true; } | awk '{s += $NF} END {printf "%.0f", s}')
  right=$({ grep -F "VirtualMix.$frame" "$lock_profile" || true; } | { grep -F ";$leaf " || true; } |
    awk '{s += $NF} END {printf "%.0f", s}')
  echo "lock weight through $frame: $with, of it ending in $leaf: $right"
  if [ "$with" -eq 0 ] || [ $((right * 100)) -lt $((with * 99)) ]; then
    fail "stacks through $frame must end in $leaf (99 % of their weight)"
  fi
done
echo "--- virtual threads' stacks"
"$java" -cp "$classes" jvmkit.test.profiler.CheckVirtualStacks --no-carrier "$cpu_profile" "$lock_profile" ||
  fail "virtual threads' stacks"
[ "$failed" -eq 0 ] || exit 1
echo PASS
