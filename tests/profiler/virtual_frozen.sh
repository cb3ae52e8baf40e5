#!/usr/bin/env bash
# Whole stacks of virtual threads whose frames are partly frozen (JDK 21+, run on 25): VirtualDeep's
# virtual threads recurse DEPTH frames deep and yield without pause, so at each mount HotSpot thaws
# only their top frames and leaves the rest in the heap. Checks, all run before the verdict:
#   - at least 90 % of the cpu weight in VirtualDeep.spin has the whole stack: DEPTH + 1 frames of
#     VirtualDeep.descend above VirtualDeep.body and the continuation's first frame (measured
#     99.8 %; the rest are samples outside Java code, where the frozen frames are not read);
#   - the report counts the captures that read frozen frames: at least half the samples in spin;
#   - the stacks pass CheckVirtualStacks --no-carrier (no enterSpecial, no carrier frames).
# Usage: virtual_frozen.sh JAVA AGENT CLASSES OUTDIR SECONDS DEPTH
set -euo pipefail
# shellcheck source=profiled_run.sh
source "$(dirname "$0")/profiled_run.sh"
depth=$6
profiled_run "$1" "$2" "$3" "$4" virtual_frozen "event=cpu,interval=1ms,threads" \
  jvmkit.test.profiler21.VirtualDeep "$5" 4 "$depth"
failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}

read -r spin whole < <(awk -v want=$((depth + 1)) '
  index($0, "VirtualDeep.spin") > 0 {
    w = $NF; spin += w
    n = split($0, f, ";"); d = 0
    for (i = 1; i <= n; i++) if (f[i] ~ /VirtualDeep\.descend$/) d++
    if (d == want && index($0, "VirtualDeep.body;") > 0 && index($0, "jdk.internal.vm.Continuation.enter;") > 0) whole += w
  }
  END { printf "%d %d\n", spin, whole }' "$profile")
echo "cpu samples in VirtualDeep.spin: $spin, with the whole stack: $whole"
if [ "$spin" -lt 100 ]; then
  fail "too few samples in VirtualDeep.spin ($spin)"
elif [ $((whole * 100)) -lt $((spin * 90)) ]; then
  fail "only $whole of $spin samples in VirtualDeep.spin have the whole stack"
fi
frozen=$(sed -n -E 's/.*frozen frames read in ([0-9]+).*/\1/p' "$log")
echo "captures that read frozen frames: ${frozen:-none reported}"
if [ -z "$frozen" ] || [ $((frozen * 2)) -lt "$spin" ]; then
  fail "the report counts ${frozen:-no} captures that read frozen frames, for $spin samples in spin"
fi
"$java" -cp "$classes" jvmkit.test.profiler.CheckVirtualStacks --no-carrier "$profile" || fail "virtual threads' stacks"
[ "$failed" -eq 0 ] || exit 1
echo PASS
