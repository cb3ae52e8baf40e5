#!/usr/bin/env bash
# async-profiler's own test programs for CPU sampling (its smoke cpu, recovery and depth cases),
# profiled through jvmkit's profiler with Java frames only (cstack=no): every sample is a request
# of the stack-walk API (the JEP draft's RequestStackTrace from the CPU-time signal), so this is
# how that API does on the shapes async-profiler tests its own walker with. The programs are
# compiled from an async-profiler source tree given by the caller (never copied into this
# project); each one runs, jvmkit attaches as async-profiler's tests do (`profile -d 2 ...`), and
# the checks are those tests' own limits, read for a Java-only profile:
#   failed    requests that failed, of all requests of Java threads (async-profiler counts its
#             unknown or broken stacks; limits 0.5 % and 1 %)
#   short     stacks of one or two frames (intrinsics: at most 1 %); for currentTimeMillis, whose
#             Java stack is main alone, stacks not rooted in main instead
#   ratio     the share of samples under a path (e.g. Numbers.main;Numbers.loop, at least 80 %)
#   depth     with --depth 50: the deepest stack has exactly 50 frames (and the [truncated] marker
#             jvmkit puts at a cut stack's root), and some whole ones are shorter
# Usage: ASYNC_PROFILER_SRC=<async-profiler checkout> bench/stack_walk/async_profiler_cases.sh
#          [build dir] [busy processes] [JDK home...]
#   build dir        a tree with the profiler built (default build/test)
#   busy processes   CPU-bound shell loops beside it (default 0)
#   JDK homes        default: Debian's JDK 17 and Temurin 25 where present; each with the default
#                    collector, -XX:+UseZGC and -Xint
# Writes docs/bench-results/async_profiler_cases-<date>-busy<N>.txt and prints it; exits 1 when a check
# fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
src=${ASYNC_PROFILER_SRC:?set ASYNC_PROFILER_SRC to an async-profiler checkout (its test/test folder is used)}
build=${1:-build/test}
busy=${2:-0}
shift $(($# < 2 ? $# : 2))
jdks=("$@")
if [ ${#jdks[@]} -eq 0 ]; then
  for home in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64; do
    [ -x "$home/bin/java" ] && jdks+=("$home")
  done
fi
cmake --build "$build" -j"$(nproc)" --target jvmkit jvmkit_prof >/dev/null
tool="$PWD/$build/src/profiler/jvmkit"
work=$(mktemp -d)
pids=()
cleanup() {
  [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
tests="$src/test/test"
javac -d "$work/classes" "$tests/smoke/Cpu.java" "$tests/recovery/"{StringBuilderTest,Numbers,Suppliers,CodingIntrinsics,TimeLoop}.java \
  "$tests/depth/DeepRecursion.java"
for _ in $(seq 1 "$busy"); do
  sh -c 'while :; do :; done' &
  pids+=($!)
done
out="docs/bench-results/async_profiler_cases-$(date -u +%Y-%m-%d-%H%M)-busy$busy.txt"
status=0

# The share of samples (of a collapsed profile FILE) whose stack matches the regex RE.
ratio() {
  awk -v re="$2" '{ n = $NF; total += n; if ($0 ~ re) hit += n } END { printf "%.4f", total ? hit / total : 0 }' "$1"
}
# The share of samples whose stack has at most 2 frames.
short_share() {
  awk '{ n = $NF; total += n; line = $0; sub(/ [0-9]+$/, "", line); if (split(line, f, ";") <= 2) hit += n }
       END { printf "%.4f", total ? hit / total : 0 }' "$1"
}
# The most frames in one stack, the [truncated] marker not counted.
max_depth_unmarked() {
  awk '{ line = $0; sub(/ [0-9]+$/, "", line); sub(/^\[truncated\];/, "", line); d = split(line, f, ";"); if (d > m) m = d }
       END { print m + 0 }' "$1"
}
check() {  # CASE WHAT VALUE OP LIMIT
  local ok
  ok=$(awk -v v="$3" -v l="$5" -v op="$4" 'BEGIN { print (op == "<=" ? v <= l : op == ">=" ? v >= l : v == l) ? "ok" : "FAILED" }')
  [ "$ok" = ok ] || status=1
  printf '  %-18s %-44s %-8s %s %-6s %s\n' "$1" "$2" "$3" "$4" "$5" "$ok"
}

# One case: MAIN class, seconds to profile, JVM flags, profiler flags; sets FILE and FAILED_SHARE.
run_case() {
  local java=$1 main=$2 seconds=$3 jvm_flags=$4 prof_flags=$5
  file="$work/$main.collapsed"
  # shellcheck disable=SC2086 # the flags are words
  "$java" -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints $jvm_flags -cp "$work/classes" "$main" \
    >"$work/$main.out" 2>&1 &
  local pid=$!
  sleep 1
  # shellcheck disable=SC2086
  "$tool" profile -d "$seconds" -e cpu --cstack no $prof_flags -o "$file" -f collapsed "$pid" >"$work/report" 2>&1 || {
    echo "  $main: jvmkit profile failed:"
    sed 's/^/    /' "$work/report"
    status=1
  }
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  local line
  line=$(sed -n -E 's/.*samples requested ([0-9]+), delivered ([0-9]+), failed ([0-9]+), dropped ([0-9]+).*/\1 \2 \3 \4/p' "$work/report" | tail -1)
  read -r requested delivered failed dropped <<<"${line:-0 0 0 0}"
  failed_share=$(awk -v f="$failed" -v d="$delivered" 'BEGIN { printf "%.4f", f + d ? f / (f + d) : 0 }')
  echo "  $main: requested $requested, delivered $delivered, failed $failed, dropped $dropped"
  grep -E '^ *failed by reason|failed [a-z_]+ [0-9]' "$work/report" | sed 's/^ */    /' | head -3 || true
}

# The block runs in this shell (its checks set STATUS); its output goes to the results file.
{
  echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(uname -m) $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $busy busy processes beside"
  echo "   async-profiler tests from $src ($(git -C "$src" describe --tags --always 2>/dev/null || echo unknown revision))"
  for home in "${jdks[@]}"; do
    java="$home/bin/java"
    for flags in "" "-XX:+UseZGC" "-Xint"; do
      echo
      echo "== JDK $("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.runtime.version = //p') ${flags:-(default flags)}"
      run_case "$java" test.smoke.Cpu 2 "$flags" "-i 10ms"
      check cpu "Cpu.main;Cpu.method1" "$(ratio "$file" 'Cpu\.main;[^ ]*Cpu\.method1')" ">=" 0.01
      check cpu "Cpu.main;Cpu.method2" "$(ratio "$file" 'Cpu\.main;[^ ]*Cpu\.method2')" ">=" 0.01
      check cpu "Cpu.main;Cpu.method3;java/io/File" "$(ratio "$file" 'Cpu\.main;[^ ]*Cpu\.method3;java.io.File')" ">=" 0.01
      check cpu failed "$failed_share" "<=" 0.005

      run_case "$java" test.recovery.StringBuilderTest 2 "-XX:UseAVX=2 $flags" "-i 1ms"
      check stringBuilder "main;StringBuilder.delete" "$(ratio "$file" 'StringBuilderTest\.main;java.lang.StringBuilder\.delete')" ">=" 0.8
      check stringBuilder failed "$failed_share" "<=" 0.005

      run_case "$java" test.recovery.Numbers 2 "$flags" "-i 1ms"
      check numbers "Numbers.main;Numbers.loop" "$(ratio "$file" 'Numbers\.main;[^ ]*Numbers\.loop')" ">=" 0.8
      check numbers "Numbers.main;Numbers.loop;Numbers.avg" "$(ratio "$file" 'Numbers\.main;[^ ]*Numbers\.loop;[^ ]*Numbers\.avg')" ">=" 0.5
      check numbers failed "$failed_share" "<=" 0.005

      run_case "$java" test.recovery.Suppliers 2 "$flags" "-i 1ms"
      check suppliers "Suppliers.main;Suppliers.loop" "$(ratio "$file" 'Suppliers\.main;[^ ]*Suppliers\.loop')" ">=" 0.5
      check suppliers failed "$failed_share" "<=" 0.005

      run_case "$java" test.recovery.CodingIntrinsics 3 "$flags" "-i 1ms"
      check intrinsics failed "$failed_share" "<=" 0.01
      check intrinsics "stacks of 1-2 frames" "$(short_share "$file")" "<=" 0.01

      # Java frames only: TimeLoop.main is the whole Java stack, so a short stack is no fault here;
      # a broken one would not start at main.
      run_case "$java" test.recovery.TimeLoop 3 "$flags" "-i 1ms"
      check currentTimeMillis failed "$failed_share" "<=" 0.01
      check currentTimeMillis "stacks rooted in TimeLoop.main" "$(ratio "$file" '^[^;]*TimeLoop\.main')" ">=" 0.99

      # jvmkit cuts a deeper stack at its root end and marks it [truncated], as async-profiler's
      # "-j 50/20" form does: 50 frames and the marker.
      run_case "$java" test.depth.DeepRecursion 2 "$flags" "-i 10ms --depth 50"
      check depth "deepest stack (frames, no marker)" "$(max_depth_unmarked "$file")" "==" 50
      check depth "truncated stacks not [truncated]+50" "$(awk '/^\[truncated\];/ { line = $0; sub(/ [0-9]+$/, "", line); if (split(line, f, ";") != 51) n += $NF } END { print n + 0 }' "$file")" "==" 0
      check depth "whole stacks under 50 frames" "$(awk '/^[^;]*DeepRecursion\.main/ { line = $0; sub(/ [0-9]+$/, "", line); if (split(line, f, ";") < 50) n += $NF } END { print n + 0 }' "$file")" ">=" 1
    done
  done
} >"$out" 2>&1
cat "$out"
echo "written: $out"
exit "$status"
