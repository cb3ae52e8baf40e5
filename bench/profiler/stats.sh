# Shared by the profiler benchmarks (sourced): statistics over one number per line on stdin.
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
minimum() { sort -n | head -1; }
# The lower and upper quartiles (nearest rank): how far the runs spread around the median.
quartiles() { sort -n | awk '{a[NR]=$1} END {lo = int((NR + 3) / 4); hi = NR + 1 - lo; print a[lo], a[hi]}'; }

# ratio_row LABEL1 LABEL2 CONFIG FILE BASE_FILE: one table row for the runs in FILE (lines
# "elapsed_ns cpu_ns") against those in BASE_FILE: "| LABEL1 | LABEL2 | CONFIG | median wall (s) |
# min wall (s) | median CPU (s) | wall ratio (median) | wall ratio (min) | CPU ratio (median) |".
ratio_row() {
  local med min cpu base_med base_min base_cpu
  med=$(cut -d' ' -f1 "$4" | median)
  min=$(cut -d' ' -f1 "$4" | minimum)
  cpu=$(cut -d' ' -f2 "$4" | median)
  base_med=$(cut -d' ' -f1 "$5" | median)
  base_min=$(cut -d' ' -f1 "$5" | minimum)
  base_cpu=$(cut -d' ' -f2 "$5" | median)
  awk -v a="$1" -v b="$2" -v c="$3" -v med="$med" -v min="$min" -v cpu="$cpu" -v bm="$base_med" -v bmin="$base_min" \
      -v bc="$base_cpu" 'BEGIN {
    printf "| %s | %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", a, b, c, med / 1e9, min / 1e9, cpu / 1e9,
           med / bm, min / bmin, cpu / bc }'
}
