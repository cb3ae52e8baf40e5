#!/usr/bin/env bash
# Context labels (org.jvmkit.JvmkitContext) in the profiler's outputs.
# Usage: context_labels.sh JAVA AGENT CLASSPATH OUTDIR shares|virtual [SECONDS]
#   shares   LabelShares (endpoint=/a 50 %, /b 30 %, /c 20 % of the CPU, /a inside a span), profiled
#            once per output: collapsed with the labels option, pprof, and JFR read by the JDK's
#            RecordingFile (LabelCheck). The label shares must be within total variation 0.05 of
#            the truth, and in JFR /a's samples carry the span's ids.
#   virtual  VirtualLabels (JDK 24+): virtual threads that move between carriers inside their
#            scopes; every burn sample under [group=gN] must be in group N's method (GroupCheck).
# Counts only, no timing: the checks hold on a loaded machine (CPU-time sampling).
set -euo pipefail
java=$1 agent=$2 classpath=$3 out=$4 mode=$5 seconds=${6:-3}
rm -rf "$out"
mkdir -p "$out"

run() {  # run FILE FORMAT OPTIONS MAIN ARGS...
  local file=$1 format=$2 options=$3
  shift 3
  if ! "$java" "-agentpath:$agent=interval=1ms,file=$file,format=$format$options" -cp "$classpath" "$@" \
      >"$file.log" 2>&1; then
    echo "FAIL: the profiled run ($format) failed:"
    cat "$file.log"
    exit 1
  fi
}

case "$mode" in
  shares)
    for format in collapsed pprof jfr; do
      options=""
      [ "$format" = collapsed ] && options=",labels"
      run "$out/profile.$format" "$format" "$options" jvmkit.test.context.LabelShares "$seconds" 2
      "$java" -cp "$classpath" jvmkit.test.context.LabelCheck "$format" "$out/profile.$format" 1000 0.05
    done
    # The end-of-run report counts the labelled threads and the three label sets.
    if ! grep -Eq '^jvmkit profiler: context labels: [1-9][0-9]* threads, 3 label sets$' "$out/profile.collapsed.log"; then
      echo "FAIL: the report does not count the context labels:"
      grep 'context labels' "$out/profile.collapsed.log" || echo "(no line)"
      exit 1
    fi
    # Without the labels option collapsed output has no label frames: the stacks merge.
    run "$out/plain.collapsed" collapsed "" jvmkit.test.context.LabelShares 1 1
    if grep -q '^\[endpoint=' "$out/plain.collapsed"; then
      echo "FAIL: label root frames without the labels option"
      exit 1
    fi
    ;;
  virtual)
    run "$out/virtual.collapsed" collapsed ",labels" jvmkit.test.context.VirtualLabels "$seconds" 64
    "$java" -cp "$classpath" jvmkit.test.context.GroupCheck "$out/virtual.collapsed" 500 0.02
    ;;
  *)
    echo "unknown mode $mode"
    exit 2
    ;;
esac
echo "ok"
