#!/usr/bin/env bash
# Runs a workload with known truth under the profiler (collapsed output), checks the end-of-run
# report on stderr, then compares the profile with the truth the workload wrote (CheckProfile).
# Usage: run_accuracy.sh JAVA AGENT CLASSES OUTDIR NAME AGENT_OPTIONS MAX_TVD [JVM args...] MAIN [args...]
# In the program's arguments, @TRUTH@ stands for the truth file.
set -euo pipefail
# shellcheck source=report_counts.sh
source "$(dirname "$0")/report_counts.sh"
# shellcheck source=profiled_run.sh
source "$(dirname "$0")/profiled_run.sh"
max_tvd=$7
profiled_run "$1" "$2" "$3" "$4" "$5" "$6" "${@:8}"
# The report: counts, top methods, where the output went.
report_has "samples requested" "delivered" "failed" "dropped" "top methods (self samples):" "wrote collapsed output"
grep -qF "$profile" "$log" || { echo "FAIL: the report does not say where the output went"; exit 1; }
# Every request has one outcome (report_counts.sh).
report_counts "$log" || { echo "FAIL: report arithmetic: $counts_error"; exit 1; }
few_dropped "$dropped" "$requested"
compare_with_truth "$max_tvd"
