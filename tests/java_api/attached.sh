#!/usr/bin/env bash
# Usage: attached.sh TOOL JAVA CLASSPATH OUT_DIR
# The Java API on an agent the jvmkit tool loaded (HotSpot's attach mechanism): the program waits
# until `jvmkit start` is done, then Profiler.get() must find that agent (no property, no variable:
# its natives are found among the JVMTI agent libraries), see its run, dump and stop it
# (jvmkit.test.api.RunningAgentMain).
set -euo pipefail
tool=$1 java=$2 classpath=$3 out=$4
rm -rf "$out"
mkdir -p "$out"
profile=$out/attached.collapsed
fail() { echo "FAIL: $*"; cat "$out/java.log" 2>/dev/null; exit 1; }

flags=()
# JDK 21 and later warn about agents loaded into a running JVM unless it allows them.
if "$java" -XX:+EnableDynamicAgentLoading -version >/dev/null 2>&1; then flags=(-XX:+EnableDynamicAgentLoading); fi
"$java" "${flags[@]}" -Xcheck:jni -cp "$classpath" jvmkit.test.api.RunningAgentMain "$profile" \
  --await "$out/started" >"$out/java.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
# The program prints "ready" once main runs (at most 120 s on a busy host).
for _ in $(seq 1200); do
  grep -q ready "$out/java.log" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || fail "the JVM exited before it was ready"
  sleep 0.1
done
grep -q ready "$out/java.log" || fail "the JVM was not ready after 120 s"

"$tool" start -e cpu -i 1ms -o "$profile" "$pid" >"$out/start.log" 2>&1 || { cat "$out/start.log"; fail "jvmkit start"; }
echo "jvmkit start: $(cat "$out/start.log")"
touch "$out/started"
wait "$pid" || fail "the program failed"
trap - EXIT
cat "$out/java.log"
grep -qx "passed" "$out/java.log" || fail "the program did not pass"
grep -q "jvmkit.test.api.Hot.countPrimes" "$profile" || fail "the profile stop wrote does not name the hot method"
echo "passed"
