#!/usr/bin/env bash
# The main job, for a new user: install what is missing, build, profile the bundled demo program
# (java/demo: countPrimes 50%, hashStrings 30%, sortArrays 20% of its CPU time) with the jvmkit
# profiler and write an interactive flame graph. Usage: scripts/demo.sh [seconds]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
# JVMKIT_BUILD_DIR=DIR: profile with the profiler already built in DIR (the test command passes
# its Release tree) instead of configuring and building build/release.
build=${JVMKIT_BUILD_DIR:-}

if [ -z "$build" ]; then
  build=build/release
  scripts/setup.sh
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DJVMKIT_BUILD_TESTS=OFF -DJVMKIT_BUILD_BENCH=OFF >build-release.log 2>&1 \
    || { cat build-release.log; exit 1; }
  cmake --build "$build" -j"$(nproc)" >>build-release.log 2>&1 || { tail -50 build-release.log; exit 1; }
  rm -f build-release.log
fi

java_home=/usr/lib/jvm/java-17-openjdk-amd64
classes=$build/classes/java_demo
launcher=$build/src/profiler/jvmkit
mkdir -p out
# jvmkit profile adds -agentpath:libjvmkit_prof.so=... to the java command (docs/profiler.md):
# CPU-time sampling at 1 ms, one thread-split HTML flame graph. The profiler prints its report
# (samples requested/delivered/failed/dropped, top methods) on stderr when the JVM exits.
"$launcher" profile -e cpu -i 1ms -t -o out/demo-flamegraph.html -- \
  "$java_home/bin/java" -cp "$classes" jvmkit.demo.Demo "$seconds"
echo "demo: flame graph written to out/demo-flamegraph.html (open it in a browser: click to zoom, search, Esc resets)"
