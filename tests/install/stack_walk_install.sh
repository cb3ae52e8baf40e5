#!/usr/bin/env bash
# Usage: stack_walk_install.sh BUILD_DIR JAVA CLASSES EXAMPLE_C CC
# The example agent examples/jep_profiler/jep_profiler.c, written only to the JEP draft's API,
# built against an installed tree and run on JAVA, the two ways a tool reaches the API:
#  1. linked with libjvmkit_walk.so (pkg-config jvmkit-walk), with EnableRequestStackTrace in
#     Agent_OnLoad, in VMStart and in VMInit, nothing jvmkit-specific called;
#  2. not linked with jvmkit at all, finding com.sun.hotspot.functions.* among the JVMTI extension
#     functions once libjvmkit_walk.so was loaded as an agent before it; HotSpot's own extension
#     functions still listed first;
#  3. both loaded into a running JVM with jcmd JVMTI.agent_load (dynamic attach): with
#     -XX:+DebugNonSafepoints exact, without it biased where the code was compiled before;
# and the errors: the example without the API, libjvmkit_walk.so given a bad option.
set -euo pipefail
build=$1 java=$2 classes=$3 example=$4 cc=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
step() { echo "== stack-walk install test: $*"; }
fail() { echo "FAIL: $*"; exit 1; }

step "cmake --install $build --prefix $prefix"
# One install at a time: every cmake --install of a tree writes its install_manifest.txt.
flock "$build/.install.lock" cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }
walk=$prefix/lib/libjvmkit_walk.so
[ -e "$walk" ] || fail "missing after install: lib/libjvmkit_walk.so"

step "build the example linked with libjvmkit_walk (pkg-config jvmkit-walk)"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
warnings=(-std=c99 -pedantic-errors -Wall -Wextra -Werror)
# shellcheck disable=SC2046
"$cc" "${warnings[@]}" -DJEP_PROFILER_LINKED -shared -fPIC -o "$tmp/libjep_linked.so" "$example" \
  $(pkg-config --cflags --libs jvmkit-walk) -Wl,-rpath,"$prefix/lib" -Wl,-z,defs

step "build the example without jvmkit (extension functions; the header for the types only)"
# shellcheck disable=SC2046
"$cc" "${warnings[@]}" -shared -fPIC -o "$tmp/libjep_ext.so" "$example" $(pkg-config --cflags jvmkit-walk)
if ldd "$tmp/libjep_ext.so" | grep jvmkit >/dev/null; then fail "the extension-function build links jvmkit"; fi

version=$("$java" -version 2>&1 | head -1)
# 1.5 s of CPU time: the example samples CPU time, a signal per ms of it, busy host or not.
workload=(-cp "$classes" jvmkit.test.walk.Workers 1.5 2 cpu)

# Checks the example's summary in $tmp/out: Enable and Disable succeeded, every accepted request
# ended in a trace or a failure, at least MIN_TRACES traces, the hot method among the top ones.
check_summary() {
  local label=$1 min_traces=$2
  cat "$tmp/out"
  grep -q "EnableRequestStackTrace in .*: JVMTI error 0$" "$tmp/out" || fail "$label: Enable did not succeed"
  grep -q "DisableRequestStackTrace: JVMTI error 0$" "$tmp/out" || fail "$label: Disable did not succeed"
  local line accepted traces failures
  line=$(grep "jep_profiler: signals" "$tmp/out") || fail "$label: no summary"
  accepted=$(sed -E 's/.* accepted ([0-9]+).*/\1/' <<<"$line")
  traces=$(sed -E 's/.* traces ([0-9]+).*/\1/' <<<"$line")
  failures=$(sed -E 's/.* failures ([0-9]+).*/\1/' <<<"$line")
  [ "$accepted" -eq $((traces + failures)) ] || fail "$label: accepted $accepted != traces $traces + failures $failures"
  [ "$traces" -ge "$min_traces" ] || fail "$label: only $traces traces"
  grep -q "Ljvmkit/test/walk/Work;.compute$" "$tmp/out" || fail "$label: the hot method is not among the top methods"
}

# Runs java with the given agent arguments, with -Xcheck:jni; checks the example's summary.
profile() {
  local label=$1
  shift
  step "$label on $version"
  "$java" -Xcheck:jni "$@" "${workload[@]}" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/out" "$tmp/err"; fail "$label: java failed"; }
  # A signal per ms of process CPU time, 1.5 s of it: 380-420 traces measured on an idle machine
  # when the run was 1.5 s of wall time; 100 traces still show that sampling works.
  check_summary "$label" 100
  if grep -q "WARNING\|FATAL" "$tmp/err"; then cat "$tmp/err"; fail "$label: -Xcheck:jni or the JVM complained"; fi
}

for place in onload vmstart vminit; do
  profile "linked, Enable in $place" "-agentpath:$tmp/libjep_linked.so=enable=$place"
done
profile "extension functions" "-agentpath:$walk" "-agentpath:$tmp/libjep_ext.so=list"
grep -q "extension function com.sun.hotspot.functions.EnableRequestStackTrace (0 parameters)" "$tmp/out" ||
  fail "EnableRequestStackTrace not listed"
# Parameters as JVMTI describes them: name:kind:base type (JTHREAD 110, CVOID 116):null_ok.
grep -q "extension function com.sun.hotspot.functions.RequestStackTrace (4 parameters) thread:IN_PTR:110:null_ok ucontext:IN_PTR:116:null_ok callbacks:IN:116 user_data:IN_PTR:116:null_ok$" "$tmp/out" ||
  fail "RequestStackTrace not listed with its 4 parameters"
grep -q "extension function jvmkit.functions.GetStackWalkCounters" "$tmp/out" || fail "jvmkit's own extensions not listed"
grep "extension function" "$tmp/out" | sed 's/ (.*//' >"$tmp/with"
grep "extension event" "$tmp/out" >"$tmp/events_with" || true

step "the example without the API on $version: a clear error, HotSpot's own extension functions listed"
if "$java" "-agentpath:$tmp/libjep_ext.so=list" "${workload[@]}" >"$tmp/out" 2>"$tmp/err"; then
  fail "the example started without the API"
fi
grep -q "has no Unbiased Stack-Walk API" "$tmp/err" || { cat "$tmp/err"; fail "no clear error without the API"; }
grep "extension function" "$tmp/out" | sed 's/ (.*//' >"$tmp/without"
[ -s "$tmp/without" ] || fail "HotSpot lists no extension functions"
head -n "$(wc -l <"$tmp/without")" "$tmp/with" | diff "$tmp/without" - || fail "HotSpot's own extension functions changed"
cat "$tmp/without"
grep "extension event" "$tmp/out" >"$tmp/events_without" || true
diff "$tmp/events_without" "$tmp/events_with" || fail "GetExtensionEvents lists other events with jvmkit loaded"
cat "$tmp/events_without"

# Starts the workload with the given JVM flags, attaches libjvmkit_walk.so and then the example
# (not linked with jvmkit) with jcmd JVMTI.agent_load, waits for the JVM; the example's output in $tmp/out.
# The workload runs until the attach is done (its start file), then for 2 s of its CPU time: the
# example samples CPU time (a signal per ms of it), so a busy host gives it as many signals.
jcmd=$(dirname "$java")/jcmd
attach_flags=()
if "$java" -XX:+EnableDynamicAgentLoading -version >/dev/null 2>&1; then attach_flags=(-XX:+EnableDynamicAgentLoading); fi
attach_run() {
  rm -f "$tmp/attached"
  "$java" "${attach_flags[@]}" "$@" -cp "$classes" jvmkit.test.walk.Workers 2 2 "cpu-after=$tmp/attached" >"$tmp/out" 2>"$tmp/err" &
  local pid=$!
  # Attach once C2 has compiled the hot method (code compiled before Enable is what this tests):
  # the JVM works until then, however long C2 takes (at most 60 s here).
  local compiled=no
  for _ in $(seq 600); do
    if "$jcmd" "$pid" Compiler.codelist 2>/dev/null | grep " 4 0 jvmkit.test.walk.Work.compute" >/dev/null; then
      compiled=yes
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ "$compiled" = yes ] || { kill "$pid" 2>/dev/null; cat "$tmp/err"; fail "C2 did not compile Work.compute within 60 s"; }
  "$jcmd" "$pid" JVMTI.agent_load "$walk" >"$tmp/jcmd" 2>&1 || { cat "$tmp/jcmd"; kill "$pid"; fail "attach libjvmkit_walk.so"; }
  "$jcmd" "$pid" JVMTI.agent_load "$tmp/libjep_ext.so" >>"$tmp/jcmd" 2>&1 || { cat "$tmp/jcmd"; kill "$pid"; fail "attach the example"; }
  touch "$tmp/attached"
  wait "$pid" || { cat "$tmp/out" "$tmp/err" "$tmp/jcmd"; fail "the attached JVM failed"; }
  grep -q "EnableRequestStackTrace in attach: JVMTI error 0$" "$tmp/out" || { cat "$tmp/out" "$tmp/jcmd"; fail "attach: no Enable"; }
}
summary_field() { sed -nE "s/.*jep_profiler: signals.* $1 ([0-9]+).*/\1/p" "$tmp/out"; }

step "dynamic attach on $version, -XX:+DebugNonSafepoints: traces exact and unbiased"
attach_run -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints
check_summary "dynamic attach" 100  # about 2,000 signals after the attach
# Biased only where a trace could not be proven the thread's whole stack (a thread without a known
# bottom frame, docs/stack_walk.md "Completeness"): at most 1 %, against most of them without the flag.
biased=$(($(summary_field traces) - $(summary_field unbiased)))
[ $((biased * 100)) -le "$(summary_field traces)" ] || fail "attach with DebugNonSafepoints: $biased biased traces"

# Code compiled before Enable has debug records at safepoints and calls only: AsyncGetCallTrace
# places a PC in it by the next record (this workload's loop lands in an inlined constructor), so
# such traces must come with biased = JNI_TRUE.
step "dynamic attach on $version, without it: traces in code compiled before attach are reported biased"
attach_run
cat "$tmp/out"
[ "$(summary_field unbiased)" -lt "$(summary_field traces)" ] || fail "attach: code compiled before Enable gave unbiased traces"

step "libjvmkit_walk.so as an agent, no tool calling it, on $version: no thread of its own"
# The JVM works until the thread dump is taken (its start file), however long the JVM takes to
# start; the dump is taken once main runs Java code.
rm -f "$tmp/dumped"
"$java" "-agentpath:$walk" -cp "$classes" jvmkit.test.walk.Workers 0.2 1 "cpu-after=$tmp/dumped" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 600); do
  "$jcmd" "$pid" Thread.print >"$tmp/threads" 2>/dev/null && grep -q 'jvmkit.test.walk.Work' "$tmp/threads" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
touch "$tmp/dumped"
wait "$pid" || { cat "$tmp/err"; fail "the JVM with libjvmkit_walk.so as an agent failed"; }
grep -q '"main"' "$tmp/threads" || fail "no thread dump"
if grep -qi '"jvmkit' "$tmp/threads"; then fail "libjvmkit_walk.so started a thread without Enable"; fi

step "a bad option of libjvmkit_walk.so as an agent stops the JVM, naming the option"
if "$java" "-agentpath:$walk=bogus" -version >"$tmp/out" 2>"$tmp/err"; then fail "the JVM started with a bad option"; fi
grep -q "unknown agent option 'bogus'" "$tmp/err" || { cat "$tmp/err"; fail "the message does not name the option"; }
step "passed"
