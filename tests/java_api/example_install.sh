#!/usr/bin/env bash
# Usage: example_install.sh BUILD_DIR JAVA EXAMPLE_DIR
# examples/java_control as its README says to build and run it, against an installed tree:
# cmake --install puts jvmkit.jar in share/java and the agent in lib; the example compiles against
# the jar alone and finds the agent through -Djvmkit.agent.path; its profile names its hot method.
set -euo pipefail
build=$1 java=$2 example=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "FAIL: $*"; exit 1; }
jdk_bin=$(dirname "$java")

echo "== cmake --install $build --prefix $prefix"
# One install at a time: every cmake --install of a tree writes its install_manifest.txt.
flock "$build/.install.lock" cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" ||
  { cat "$tmp/install.log"; exit 1; }
jar=$prefix/share/java/jvmkit.jar
agent=$prefix/lib/libjvmkit_prof.so
[ -f "$jar" ] || fail "missing after install: share/java/jvmkit.jar"
[ -f "$agent" ] || fail "missing after install: lib/libjvmkit_prof.so"
"$jdk_bin/jar" --list --file "$jar" | grep -x "org/jvmkit/Profiler.class" >/dev/null ||
  fail "no org/jvmkit/Profiler.class in the jar"

echo "== build the example against the installed jar"
"$jdk_bin/javac" -Xlint:all -Werror -cp "$jar" -d "$tmp/classes" "$example"/*.java

echo "== run it on $("$java" -version 2>&1 | head -1)"
profile=$tmp/example.collapsed
"$java" --enable-native-access=ALL-UNNAMED "-Djvmkit.agent.path=$agent" -cp "$jar:$tmp/classes" \
  ControlExample "$profile" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/out" "$tmp/err"; fail "the example failed"; }
cat "$tmp/out"
grep -q "^started " "$tmp/out" || fail "the example did not print start's answer"
grep -q "ControlExample.countPrimes" "$profile" || fail "the example's profile does not name ControlExample.countPrimes"
# Native access enabled for the class path: no warning about System.load (JDK 24 and later).
if grep -q "WARNING" "$tmp/err"; then cat "$tmp/err"; fail "the JVM warned"; fi
echo "passed"
