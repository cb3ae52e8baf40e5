#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the unit and JVM tests (ctest, on every JDK
# found), then the unit tests again under AddressSanitizer+UBSan and under ThreadSanitizer (their
# trees build in the background, at the lowest priority, while the JVM tests run), then the
# README's main job (scripts/demo.sh).
# The house rules a tool can check: the formatting of every C/C++ file (clang-format, the project's
# .clang-format), before ctest, and the signal-safety marker check (tools/signal_safety_check.py),
# in the background with the sanitizer builds.
# Ends with one summary line. Long runs (label "slow") are not part of it: ctest -L slow runs them.
#
# Environment: JVMKIT_EXTRA_JDKS=home1:home2 adds JDKs; JVMKIT_SKIP_SANITIZERS=1 skips the
# sanitizer builds (for a quick local loop; CI never sets it).
set -uo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
jobs=$(nproc)

scripts/setup.sh || { echo "setup failed"; exit 1; }

passed=0
failed=0
failed_names=()
parts=()

# Configures and builds one tree; prints the build log only when it fails.
# $1 tree, $2 target ("all" or "unit_tests"), then cmake options.
build_tree() {
  local dir=$1 target=$2; shift 2
  mkdir -p "$dir"
  if ! { cmake -S . -B "$dir" "$@" && cmake --build "$dir" -j"$jobs" --target "$target"; } >"$dir/build.log" 2>&1; then
    tail -80 "$dir/build.log"
    echo "BUILD FAILED: $dir (full log: $dir/build.log)"
    return 1
  fi
}

# Runs ctest in one tree and adds its counts to the totals. $1 tree, $2 name for the summary.
run_ctest() {
  local dir=$1 name=$2; shift 2
  local log="$dir/ctest.log"
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" "$@" 2>&1 | tee "$log"
  local line total fails
  line=$(grep -E '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
  if [ -z "$line" ]; then
    echo "ctest in $dir ran no test"; failed=$((failed + 1)); failed_names+=("$name: no tests ran"); return
  fi
  fails=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
  total=$(sed -E 's/.* failed out of ([0-9]+).*/\1/' <<<"$line")
  passed=$((passed + total - fails))
  failed=$((failed + fails))
  parts+=("$name $((total - fails))/$total")
  # The names under ctest's "The following tests FAILED:" (not those it lists as skipped).
  while read -r t; do failed_names+=("$name: $t"); done < <(
    sed -n '/^The following tests FAILED:/,$p' "$log" | sed -n -E 's/^[[:space:]]*[0-9]+ - ([^ ]+) .*/\1/p')
}

# One house-rule check: $1 name, then the command. Counts as one passed or failed test.
house_check() {
  local name=$1; shift
  if "$@"; then
    passed=$((passed + 1)); house_passed=$((house_passed + 1))
  else
    failed=$((failed + 1)); failed_names+=("house rules: $name")
  fi
  house_total=$((house_total + 1))
}
house_passed=0
house_total=0
phase_times=()

# The sanitizer trees: AddressSanitizer+UBSan for every unit test, ThreadSanitizer for those of
# code that runs threads (label unit-threads; target threaded_unit_tests). Debug (-O0): the checks
# are the same and it compiles in less than half the time of -O2.
sanitizers=(address,undefined thread)
san_dir() { echo "build/san-${1//,/-}"; }
san_target() { if [ "$1" = thread ]; then echo threaded_unit_tests; else echo unit_tests; fi; }
san_label() { if [ "$1" = thread ]; then echo unit-threads; else echo unit; fi; }

# In the background, at the lowest priority: the signal-safety check of build/test, then the
# sanitizer builds (each writes build.rc; its output goes to its build.log). Sets background_pid.
start_background_work() {
  local san
  rm -f build/signal-safety.rc
  for san in "${sanitizers[@]}"; do rm -f "$(san_dir "$san")/build.rc"; done
  (
    renice -n 19 -p "$BASHPID" >/dev/null 2>&1
    tools/signal_safety_check.py build/test >build/signal-safety.log 2>&1
    echo $? >build/signal-safety.rc
    [ "${JVMKIT_SKIP_SANITIZERS:-0}" = 1 ] && exit 0
    for san in "${sanitizers[@]}"; do
      dir=$(san_dir "$san")
      # -g1: line tables for the reports' stacks, without the full debug information that makes
      # -O0 compiles and links of the test binaries slower.
      build_tree "$dir" "$(san_target "$san")" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
        -DCMAKE_C_FLAGS_DEBUG=-g1 "-DJVMKIT_SANITIZE=$san" >"$dir.out" 2>&1
      echo $? >"$dir/build.rc"
    done
  ) &
  background_pid=$!
}

# PID and every process below it, now and (through their parents) those they start later.
process_tree() {
  local child
  echo "$1"
  for child in $(pgrep -P "$1"); do process_tree "$child"; done
}

# Once ctest is done the background work is all that is left: it goes back to the normal priority,
# or other processes on the machine (a CI host's other builds) would starve it at nice 19.
# (Lowering a nice value needs root; as another user it stays at 19.)
background_to_normal_priority() {
  # shellcheck disable=SC2046
  renice -n 0 -p $(process_tree "$background_pid") >/dev/null 2>&1 || true
}

# The sanitizer trees' unit tests, once their builds (start_background_work) are done.
run_sanitizer_tests() {
  if [ "${JVMKIT_SKIP_SANITIZERS:-0}" = 1 ]; then
    parts+=("sanitizers skipped (JVMKIT_SKIP_SANITIZERS=1)")
    return
  fi
  local san dir
  for san in "${sanitizers[@]}"; do
    dir=$(san_dir "$san")
    echo "== built with -fsanitize=$san: unit tests (label $(san_label "$san"))"
    phase_started=$(date +%s)
    if [ "$(cat "$dir/build.rc" 2>/dev/null)" = 0 ]; then
      run_ctest "$dir" "$san" -L "$(san_label "$san")"
    else
      cat "$dir.out" 2>/dev/null
      failed=$((failed + 1)); failed_names+=("$dir: build failed")
    fi
    phase_times+=("$san tests $(( $(date +%s) - phase_started )) s")
  done
}

# Release code, as users build it (the README's main job runs from this tree too), with the debug
# checks compiled in.
echo "== build (Release, debug checks on): unit tests, JVM tests"
phase_started=$(date +%s)
if build_tree build/test all -DCMAKE_BUILD_TYPE=Release -DJVMKIT_DEBUG_CHECKS=ON; then
  phase_times+=("build $(( $(date +%s) - phase_started )) s")
  # While the JVM tests run, the signal-safety check and the sanitizer trees' builds run beside
  # them at the lowest priority: they take the CPU the tests leave (JVM starts, waits, serial
  # tests on one core) and the tests keep theirs. Their results are reported after ctest.
  background_started=$(date +%s)
  start_background_work
  echo "== house rules: formatting (clang-format); signal safety (tools/signal_safety_check.py) after ctest"
  house_check formatting scripts/check_format.sh
  echo "== JDKs"
  cat build/test/jdk-report.txt
  grep -o 'Stack-walk stub shapes: .*' build/test/build.log || true
  phase_started=$(date +%s)
  run_ctest build/test "unit+jvm" --label-exclude slow
  phase_times+=("ctest $(( $(date +%s) - phase_started )) s")
  phase_started=$(date +%s)
  background_to_normal_priority
  wait "$background_pid"
  phase_times+=("background work waited for $(( $(date +%s) - phase_started )) s (started $(( phase_started - background_started )) s before)")
  echo "== house rules: signal safety (tools/signal_safety_check.py)"
  cat build/signal-safety.log
  house_check signal-safety test "$(cat build/signal-safety.rc 2>/dev/null)" = 0
  parts+=("house-rules $house_passed/$house_total")
  run_sanitizer_tests
else
  failed=$((failed + 1)); failed_names+=("build/test: build failed")
fi

# The README's main job, as a user runs it, from the Release tree built above: the demo profiled,
# a flame graph written. The configuration the README's command builds (no tests, no benchmarks)
# is configured here, not built again: its sources and flags are those of the test tree.
# What a new user sees: the demo's methods and the JIT compiler threads (mixed stacks, the default)
# in the page, the report's counts adding up, and at most 0.5% of the samples failed.
# shellcheck source=tests/profiler/report_counts.sh
source tests/profiler/report_counts.sh
main_job_holds() {
  # Local: report_counts sets these, and "failed" is also this script's total.
  local page=out/demo-flamegraph.html requested delivered failed dropped not_java no_java_code counts_error
  grep -q 'jvmkit.demo.Demo.countPrimes' "$page" || { echo "main job: no countPrimes in $page"; return 1; }
  grep -q 'CompilerThre' "$page" || { echo "main job: no JIT compiler thread in $page"; return 1; }
  report_counts build/demo.log || { echo "main job: $counts_error"; return 1; }
  [ $((failed * 200)) -le "$requested" ] || { echo "main job: failed $failed of $requested (more than 0.5%)"; return 1; }
}
echo "== main job: scripts/demo.sh"
rm -f out/demo-flamegraph.html
if cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DJVMKIT_BUILD_TESTS=OFF -DJVMKIT_BUILD_BENCH=OFF \
     >build/demo.log 2>&1 &&
   JVMKIT_BUILD_DIR=build/test scripts/demo.sh 2 >>build/demo.log 2>&1 && main_job_holds; then
  tail -3 build/demo.log
  passed=$((passed + 1)); parts+=("main-job 1/1")
else
  tail -40 build/demo.log
  failed=$((failed + 1)); failed_names+=("main job: scripts/demo.sh (log: build/demo.log)")
fi

echo
echo "== summary ($(( $(date +%s) - started )) s)"
if [ -f build/test/jdk-report.txt ]; then sed 's/^/JDK: /' build/test/jdk-report.txt; fi
grep -o 'Stack-walk stub shapes: .*' build/test/build.log 2>/dev/null || true
echo "suites: ${parts[*]}"
echo "phases: ${phase_times[*]}"
for f in "${failed_names[@]}"; do echo "FAILED: $f"; done
echo "jvmkit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
