#!/usr/bin/env bash
# The main job, for a new user: install what is missing, build, profile the bundled demo program
# (java/demo) and write a flame graph. Usage: scripts/demo.sh [seconds]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}

scripts/setup.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DJVMKIT_BUILD_TESTS=OFF -DJVMKIT_BUILD_BENCH=OFF >build-release.log 2>&1 \
  || { cat build-release.log; exit 1; }
cmake --build build/release -j"$(nproc)" >>build-release.log 2>&1 || { tail -50 build-release.log; exit 1; }
rm -f build-release.log

java_home=/usr/lib/jvm/java-17-openjdk-amd64
classes=build/release/classes/java_demo
agent=build/release/src/profiler/libjvmkit_prof.so
mkdir -p out
if [ -f "$agent" ]; then
  "$java_home/bin/java" "-agentpath:$PWD/$agent=event=cpu,interval=1ms,file=$PWD/out/demo-flamegraph.html" \
    -cp "$classes" jvmkit.demo.Demo "$seconds"
  echo "demo: flame graph written to out/demo-flamegraph.html (open it in a browser)"
else
  "$java_home/bin/java" -cp "$classes" jvmkit.demo.Demo "$seconds"
  echo "demo: NOT PROFILED: the profiler (libjvmkit_prof.so, issue 6) is not built yet, so no flame graph was written."
  echo "demo: the demo program ran without it; this script will profile it once the profiler lands."
fi
