#!/usr/bin/env bash
# The cost of a JvmkitContext scope (enter + leave), without an agent and with the profiler
# running (cpu at the default 10 ms, and at 1 ms), on each JDK given: ContextScopeBench.
# Output: docs/bench-results/context_scope_cost-<UTC date>.txt (and stdout).
# Usage: bench/profiler/context_scope_cost.sh [BUILD_DIR] [JAVA_HOME...]
#   defaults: build/prof; the default java and /usr/lib/jvm/temurin-25-jdk-amd64.
# Build first: cmake --build BUILD_DIR --target jvmkit_prof jvmkit_jar
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/prof}
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
shift || true
homes=("$@")
[ ${#homes[@]} -eq 0 ] && homes=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")" /usr/lib/jvm/temurin-25-jdk-amd64)
agent="$build/src/profiler/libjvmkit_prof.so"
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
javac --release 17 -Xlint:all,-options -d "$classes" java/api/org/jvmkit/JvmkitContext.java \
  bench/profiler/context/ContextScopeBench.java
out="docs/bench-results/context_scope_cost-$(date -u +%Y-%m-%d-%H%M).txt"
{
  echo "# ContextScopeBench, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
  echo "# commit $(git rev-parse --short HEAD 2>/dev/null || echo ?) (with local changes: $(git status --short | wc -l) files)"
  for home in "${homes[@]}"; do
    echo "## $home"
    echo "### no agent"
    "$home/bin/java" -cp "$classes" ContextScopeBench
    for interval in 10ms 1ms; do
      echo "### profiler running: event=cpu,interval=$interval"
      "$home/bin/java" "-agentpath:$agent=interval=$interval,file=/dev/null,format=collapsed" -cp "$classes" \
        ContextScopeBench 2>/dev/null
    done
  done
} | tee "$out"
echo "wrote $out"
