# Sourced by the accuracy scripts (run_accuracy.sh, event_accuracy.sh): runs a workload with known
# truth under the profiler and offers the checks they share.

# profiled_run JAVA AGENT CLASSES OUTDIR NAME AGENT_OPTIONS [JVM args...] MAIN [args...]: runs the
# program with the agent (collapsed output); sets java, classes, profile, truth and log (the
# program's stderr, with the report). In the program's arguments, @TRUTH@ stands for the truth file.
# Exits with FAIL when the program fails.
profiled_run() {
  java=$1 classes=$3 profile="$4/$5.collapsed" truth="$4/$5.truth" log="$4/$5.stderr"
  local agent=$2 options=$6 a
  shift 6
  mkdir -p "$(dirname "$profile")"
  rm -f "$profile" "$truth"
  local args=()
  for a in "$@"; do args+=("${a//@TRUTH@/$truth}"); done
  echo "+ $java -agentpath:$agent=$options,file=$profile -cp $classes ${args[*]}"
  if ! "$java" "-agentpath:$agent=$options,file=$profile" -cp "$classes" "${args[@]}" 2>"$log"; then
    cat "$log"
    echo "FAIL: the profiled program failed"
    exit 1
  fi
  cat "$log"
}

# report_has TEXT...: the report on stderr has every TEXT.
report_has() {
  local expected
  for expected in "$@"; do
    grep -qF "$expected" "$log" || { echo "FAIL: the report on stderr lacks '$expected'"; exit 1; }
  done
}

# few_dropped DROPPED REQUESTED: at most 1% of the requests dropped.
few_dropped() {
  if [ "$1" -gt $(($2 / 100)) ]; then
    echo "FAIL: more than 1% of the requests dropped ($1 of $2)"
    exit 1
  fi
}

# compare_with_truth MAX_TVD: the profile against the truth the workload wrote (CheckProfile).
compare_with_truth() {
  exec "$java" -cp "$classes" jvmkit.test.profiler.CheckProfile "$profile" "$truth" "$1"
}
