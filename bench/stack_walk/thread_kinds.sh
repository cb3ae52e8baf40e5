#!/usr/bin/env bash
# How the stack walk ends on each kind of thread (docs/stack_walk.md, "Completeness" and "Recovery"):
# requests that fail (by reason) and traces delivered biased, on threads started from Java
# (InsideVmMain: allocation, checksums, clocks, megamorphic lambdas, StringBuilder.delete, 5 kHz)
# on the launcher's main thread and a thread attached through JNI (ShapesMain: class loading,
# static initialisers, lambda bootstrap and clones of large arrays below compiled code, 2 kHz),
# and on threads that ran before the library was enabled in the live phase, as at a live attach
# (LiveMain, 5 kHz),
# for each JDK found, with the default collector, -XX:+UseZGC and -Xint.
# Usage: bench/stack_walk/thread_kinds.sh [build dir] [busy processes]
#   build dir        a tree configured with the tests (default build/test; built here)
#   busy processes   how many CPU-bound shell loops run beside it (default 0)
# Writes docs/bench-results/thread_kinds-<date>.txt and prints it.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/test}
busy=${2:-0}
cmake --build "$build" -j"$(nproc)" --target stack_walk_test_agent java_test_stack_walk >/dev/null
agent="$PWD/$build/tests/stack_walk/libstack_walk_test_agent.so"
classes="$PWD/$build/classes/java_test_stack_walk"
out="docs/bench-results/thread_kinds-$(date -u +%Y-%m-%d-%H%M).txt"
pids=()
for _ in $(seq 1 "$busy"); do
  sh -c 'while :; do :; done' &
  pids+=($!)
done
trap '[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null' EXIT

# One run: its accounting line, failures by reason, per-thread lines and biased count.
summarise() {
  grep -E '^\[accounting\]|^\[live\]|^  failed |^  thread |^    failed |delivered biased|RECOVERY: attempted|VIOLATION' || true
}

{
  echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(uname -m) $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $busy busy processes beside"
  for home in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64; do
    [ -x "$home/bin/java" ] || continue
    java="$home/bin/java"
    version=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.runtime.version = //p')
    for flags in "" "-XX:+UseZGC" "-Xint"; do
      echo
      echo "== JDK $version ${flags:-(default flags)}: threads started from Java (InsideVmMain)"
      # shellcheck disable=SC2086 # FLAGS holds zero or one option
      "$java" "-agentpath:$agent=mode=accounting,rate=5000,track=worker-,check_main=no,run_moments=3000" $flags \
        -Djava.library.path="$PWD/$build/tests/stack_walk" -XX:CompileCommand=quiet "-XX:CompileCommand=dontinline,*::hotLoop" -cp "$classes" \
        jvmkit.test.walk.InsideVmMain sampled:120 2>&1 | summarise
      echo "== JDK $version ${flags:-(default flags)}: the main thread and a thread attached through JNI (ShapesMain)"
      # shellcheck disable=SC2086
      "$java" "-agentpath:$agent=mode=accounting,rate=2000,track=main:attached-,check_prefix=attached-,require_bottom=ShapesMain.main/AttachedRounds.run/Thread.exit" \
        -Djava.library.path="$PWD/$build/tests/stack_walk" $flags -XX:TieredStopAtLevel=1 -XX:-BackgroundCompilation \
        -XX:Tier3InvocationThreshold=100 -XX:Tier3MinInvocationThreshold=100 -XX:Tier3CompileThreshold=100 \
        -cp "$classes" jvmkit.test.walk.ShapesMain 3000 120 2>&1 | summarise
      echo "== JDK $version ${flags:-(default flags)}: threads running before a live-phase Enable, as at a live attach, and after it (LiveMain)"
      # shellcheck disable=SC2086
      "$java" "-agentpath:$agent=mode=live,rate=5000,track=early-:late-:main,require_bottom=Thread.run/LiveMain.main/Thread.exit" \
        -Djava.library.path="$PWD/$build/tests/stack_walk" $flags -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \
        -cp "$classes" jvmkit.test.walk.LiveMain 4 2>&1 | summarise
    done
  done
} | tee "$out"
echo "written: $out"
