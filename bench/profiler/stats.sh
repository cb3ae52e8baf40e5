# Shared by the profiler benchmarks (sourced): statistics over one number per line on stdin.
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
minimum() { sort -n | head -1; }
