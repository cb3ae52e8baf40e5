#!/usr/bin/env bash
# The converter on a large recording: time and peak resident memory of `jvmkit convert` reading a
# recording of SIZE MB (1 GB by default) into collapsed stacks, an HTML page (with its time view)
# and pprof, side by side with async-profiler's converter (jfr-converter.jar, built outside this
# tree) on the same file when it is given. The recording is bench_make_recording's: one-second
# chunks of 64 threads sampled at 1 ms, plus allocation and lock samples, 4,000 distinct stacks of
# depth 20 to 80 (see make_recording.cpp).
# Usage: bench/convert/convert_1gb.sh --build DIR [--size-mb N] [--reps N] [--jfrconv JAR] [--out FILE]
# Results: docs/bench-results/convert-1gb-<date>.txt (or --out).
set -uo pipefail
build="" size=1024 reps=3 jfrconv=${JFRCONV:-} out=""
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --size-mb) size=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --jfrconv) jfrconv=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
done
[ -n "$build" ] || { echo "usage: $0 --build DIR [--size-mb N] [--reps N] [--jfrconv JAR] [--out FILE]"; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${out:-$here/docs/bench-results/convert-1gb-$(date -u +%Y-%m-%d-%H%M).txt}
jvmkit=$build/src/profiler/jvmkit
work=${TMPDIR:-/tmp}/jvmkit-bench-convert
mkdir -p "$work"
recording=$work/recording-$size.jfr
[ -s "$recording" ] || "$build/bench/convert/bench_make_recording" "$recording" "$size" || exit 1
bytes=$(stat -c %s "$recording")

# median of the numbers on stdin
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# run NAME COMMAND...: REPS runs; the median wall time, CPU time (user + system) and peak RSS.
run() {
  local name=$1; shift
  local walls=() cpus=() rss=()
  for _ in $(seq "$reps"); do
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/log" || { tail -3 "$work/log"; echo "$name failed"; return; }
    read -r wall user sys max <"$work/time"
    walls+=("$wall"); cpus+=("$(echo "$user + $sys" | bc)"); rss+=("$max")
  done
  local w c m
  w=$(printf '%s\n' "${walls[@]}" | median)
  c=$(printf '%s\n' "${cpus[@]}" | median)
  m=$(printf '%s\n' "${rss[@]}" | median)
  printf '%-44s wall %7.2f s  cpu %7.2f s  %6.1f MB/s  peak RSS %7.1f MB  (%s)\n' "$name" "$w" "$c" \
    "$(echo "$bytes / 1048576 / $w" | bc -l)" "$(echo "$m / 1024" | bc -l)" "$(tail -1 "$work/log" | cut -c1-80)"
}

{
  echo "# jvmkit convert on a $((bytes / 1048576)) MB recording ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
  echo "# commit $(git -C "$here" rev-parse --short HEAD), $reps runs each, medians; peak RSS is the process's maximum resident set"
  echo "# recording: $recording ($bytes bytes, bench_make_recording $size)"
  run "jvmkit convert -> collapsed (cpu)" "$jvmkit" convert "$recording" -o "$work/out.collapsed" --event cpu
  run "jvmkit convert -> collapsed (all events)" "$jvmkit" convert "$recording" -o "$work/out-all.collapsed"
  run "jvmkit convert -> pprof" "$jvmkit" convert "$recording" -o "$work/out.pb.gz"
  run "jvmkit convert -> html (with its time view)" "$jvmkit" convert "$recording" -o "$work/out.html"
  if [ -n "$jfrconv" ] && [ -f "$jfrconv" ]; then
    run "async-profiler jfrconv -> collapsed (cpu)" java -jar "$jfrconv" -o collapsed "$recording" "$work/ap.collapsed"
    run "async-profiler jfrconv -> html" java -jar "$jfrconv" -o html "$recording" "$work/ap.html"
  else
    echo "async-profiler's jfr-converter.jar: not given (--jfrconv JAR)"
  fi
} | tee "$out"
echo "results: $out"
