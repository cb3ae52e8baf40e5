#!/usr/bin/env bash
# Native frames, side by side: jvmkit's profiler with cstack=native against async-profiler 4.5 with
# cstack=vmx (its mode that interleaves Java and native frames), on programs whose native time is
# known, and what each costs. Why: both claim mixed stacks (C between Java frames, the JVM's own
# frames, the thread's first frames); this measures whether the frames are the same, in the same
# order, in the right shares, and at what price.
#
# Part "accuracy": for each JDK and program, runs interleaved (jvmkit, async-profiler, jvmkit, ...),
# event cpu every 1 ms from the JVM's start (-agentpath), collapsed output with a root frame per
# thread (jvmkit `threads`; async-profiler `threads,dot,ann`), -XX:CICompilerCount=2 as in the
# stack-walk tests. Programs (the stack-walk tests' own):
#   upcall-fp, upcall-nofp  jvmkit.test.walk.UpcallMain with its JNI library built with frame
#       pointers and without (tests/stack_walk/native/upcall_jni.c): main -> a -> native n1 -> C mid
#       -> CallStaticVoidMethod -> b -> native n2 -> C leaf, where leaf works in its own loop, in
#       libc's qsort or in memcpy; the library measures the wall time of each (the truth, printed
#       by the program: about 50 / 25 / 25 %; the work is all CPU, so cpu time is wall time, but
#       on a loaded machine the wall clock also counts the time the thread waited for a CPU, in
#       whichever phase it was: the truth then drifts from what any CPU-time sampler can see, for
#       both profilers alike).
#   deflate  jvmkit.test.walk.DeflateMain: java.util.zip.Deflater at level 9, nearly all the time
#       in zlib below the native method Deflater.deflateBytesBytes (no truth of the shares).
# Per run, of the main thread's samples (the thread whose stacks hold the program's `main`):
#   names   the leaf-most frame of the samples in leaf (upcall) or below the JNI function
#           Java_java_util_zip_Deflater_deflateBytesBytes (deflate), the most frequent first:
#           both profilers should show the same names (leaf, qsort_r / msort_with_tmp.part.0 /
#           burn_compare, __memcpy_*; zlib's deflate_slow, longest_match, ...);
#   TV      (upcall) total variation distance between the shares of leaf's samples (its own loop:
#           no frame above leaf; qsort: qsort, msort or burn_compare above it; memcpy: one frame
#           above it, memcpy or memmove; other) and the library's measured shares;
#   exact   the fraction of those samples whose whole stack reads exactly, root first: the
#           thread's first frame (clone3, clone, start_thread, __libc_start_call,
#           __libc_start_main), native frames, call_stub, P.main, then for upcall P.a, P.n1,
#           Java_..._n1, mid, one or more native frames, call_stub, P.b, P.n2, Java_..._n2, leaf,
#           native frames only; for deflate Java frames down to Deflater.deflateBytesBytes, then
#           Java_java_util_zip_Deflater_deflateBytesBytes and native frames only (the check of
#           tests/stack_walk/native_agent/native_upcall.cpp, on names: a collapsed file has no
#           library names, so "native frames" means no Java frame and no marker);
#   cut     main-thread samples whose stack holds a marker frame or does not start at the thread's
#           first frame; failed: jvmkit's failed and dropped requests (its report: they are in no
#           stack); async-profiler records every sample as a stack (markers count as cut);
#   kernel  main-thread samples on which async-profiler put kernel frames on top (its perf-event
#           cpu engine takes the kernel's call chain; jvmkit's cpu event does not).
# Names are normalised before any comparison, the same for both:
#   - async-profiler's kernel frames (`_[k]` with its `ann`) are left out: the user-space frame
#     below them is where the thread was, as for jvmkit (a sample in memcpy interrupted into the
#     kernel is a sample in memcpy); how many samples had them is reported;
#   - a type suffix (`_[j]`, `_[i]`, `_[0]`, `_[1]`, `_[n]`) is dropped, so Java frames are plain
#     `package.Class.method` (dots: async-profiler's `dot` option) and a native method is its Java
#     name; jvmkit runs without `ann` (its `_[k]` would be a class frame);
#   - a clone part is dropped: jvmkit keeps it (`jni_invoke_static [clone .constprop.1]`),
#     async-profiler does not (`jni_invoke_static`);
#   - glibc's internal alias `__GI___name` (async-profiler's name for qsort_r) becomes `name`
#     (jvmkit's `qsort_r`);
#   - a marker is a frame in brackets other than the thread's root frame, `[code cache]`,
#     `[vdso]` and kernel frames: jvmkit's (`[bad frame]`, `[join mismatch]`, ... see
#     docs/profiler/mixed_stacks.md) and async-profiler's (`[unknown]`, `[unknown_Java]`,
#     `[not_walkable_Java]`, `[truncated]`, ...);
#   - Java frames are those of `jvmkit.`, `java.`, `javax.`, `jdk.`, `sun.`; the thread's root
#     frame is matched by its tid (async-profiler names the main thread DestroyJavaVM by the time
#     it writes, jvmkit `main`).
#
# Part "cost": wall time and CPU time of a fixed workload with mixed stacks
# (jvmkit.test.profiler.NativeOverheadWorkload: rounds of Deflater at level 9 on 256 KiB of text,
# time in zlib below a native method, and of OverheadWorkload's Java work), after an untimed
# warm-up, with: no profiler; jvmkit cstack=no; jvmkit's default (no cstack= given: mixed stacks,
# cstack=native); async-profiler cstack=vm (its default on HotSpot, given explicitly) and
# cstack=vmx; event cpu every --interval (1 ms by default), all from the JVM's start, collapsed
# output. The configurations run interleaved in a random order in every
# repetition; ratios are of medians within one invocation. Measured: the timed phase's wall time
# and main-thread CPU time (the workload's own clock: the signal handler's time included,
# start-up and output excluded), and the whole process's CPU time (user + system, every thread, as
# /usr/bin/time gives it: start-up, the profiler's own threads, unwind tables and output
# included). Cost per sample: (main-thread CPU with - without) / samples of the timed phase (the
# samples whose stack holds the workload's main, times the timed phase's share of main()'s CPU
# time), and (process CPU with - without) / every sample of the run (all threads; jvmkit's failed
# requests included).
#
# async-profiler is not part of jvmkit: build it outside the tree (its v4.5 tag, `make`) and give
# its library in ASYNC_PROFILER.
#
# Usage: ASYNC_PROFILER=/path/to/libasyncProfiler.so bench/profiler/native_frames_vs_async_profiler.sh [options]
#   --build DIR     jvmkit build directory (default build/prof)
#   --runs N        accuracy: runs per profiler, program and JDK (default 5)
#   --seconds S     accuracy: the programs' seconds (default 3)
#   --programs LIST upcall-fp, upcall-nofp, deflate (default all three)
#   --reps N        cost: repetitions of every configuration (default 7)
#   --rounds R      cost: workload rounds, or "Ns": per JDK the rounds that take about N s of the
#                   main thread's CPU without a profiler, calibrated by one run that is not counted
#                   (default 3s)
#   --jdks LIST     17, 25 or 17,25 (default 17,25)
#   --parts LIST    accuracy, cost or accuracy,cost (default both)
#   --interval I    cost: the sampling interval, 1ms or 10ms (a number of ms; default 1ms)
#   --configs LIST  cost: the configurations, "none" among them (default
#                   none,jvmkit-no,jvmkit-default,ap-vm,ap-vmx); fewer leave time for more --reps
#   --out DIR       where the results go: DIR/native_frames_vs_async_profiler.txt, and each run's
#                   profile, output and report under DIR/runs/ (default BUILD_DIR/bench-native-ap)
# Build first: cmake --build BUILD_DIR --target jvmkit_prof java_test_profiler java_test_stack_walk
#   stack_walk_upcall_fp stack_walk_upcall_nofp
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build/prof runs=5 seconds=3 programs=upcall-fp,upcall-nofp,deflate reps=7 rounds_arg=3s jdk_list=17,25
parts=accuracy,cost out_dir= interval_arg=1ms config_list=none,jvmkit-no,jvmkit-default,ap-vm,ap-vmx
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2 ;;
    --runs) runs=$2 ;;
    --seconds) seconds=$2 ;;
    --programs) programs=$2 ;;
    --reps) reps=$2 ;;
    --rounds) rounds_arg=$2 ;;
    --jdks) jdk_list=$2 ;;
    --parts) parts=$2 ;;
    --interval) interval_arg=$2 ;;
    --configs) config_list=$2 ;;
    --out) out_dir=$2 ;;
    *) echo "native_frames_vs_async_profiler.sh: unknown option '$1' (see the usage at the top of the script)"; exit 2 ;;
  esac
  shift 2
done
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
agent="$build/src/profiler/libjvmkit_prof.so"
walk_classes="$build/classes/java_test_stack_walk" prof_classes="$build/classes/java_test_profiler"
upcall_fp="$build/tests/stack_walk/libstack_walk_upcall_fp.so" upcall_nofp="$build/tests/stack_walk/libstack_walk_upcall_nofp.so"
for needed in "$agent" "$walk_classes" "$prof_classes" "$upcall_fp" "$upcall_nofp"; do
  if [ ! -e "$needed" ]; then
    echo "build first: cmake --build $build --target jvmkit_prof java_test_profiler java_test_stack_walk stack_walk_upcall_fp stack_walk_upcall_nofp"
    exit 1
  fi
done
ap=${ASYNC_PROFILER:-}
if [ -z "$ap" ] || [ ! -f "$ap" ]; then
  echo "ASYNC_PROFILER: the path of async-profiler's libasyncProfiler.so (built outside this project), not '$ap'"
  exit 1
fi
if ! [[ "$runs" =~ ^[1-9][0-9]*$ && "$reps" =~ ^[1-9][0-9]*$ ]]; then echo "--runs, --reps: positive numbers"; exit 2; fi
out_dir=${out_dir:-$build/bench-native-ap}
mkdir -p "$out_dir/runs"
result="$out_dir/native_frames_vs_async_profiler.txt"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[[ "$interval_arg" =~ ^([1-9][0-9]*)ms$ ]] || { echo "--interval: a number of ms such as 10ms, not '$interval_arg'"; exit 2; }
interval_ns=$((${BASH_REMATCH[1]} * 1000000))
for config in ${config_list//,/ }; do
  case "$config" in none | jvmkit-no | jvmkit-default | ap-vm | ap-vmx) ;; *) echo "--configs: unknown configuration '$config'"; exit 2 ;; esac
done
case ",$config_list," in *,none,*) ;; *) echo "--configs: 'none' is needed (the ratios are to it)"; exit 2 ;; esac

jdk_home() {
  case "$1" in
    17) echo /usr/lib/jvm/java-17-openjdk-amd64 ;;
    25) echo /usr/lib/jvm/temurin-25-jdk-amd64 ;;
    *) echo "--jdks: 17 or 25, not '$1'" >&2; exit 2 ;;
  esac
}

# shellcheck source=bench/profiler/stats.sh
. bench/profiler/stats.sh

# The analysis of one collapsed profile (see the header): prints "key=value" pairs on one line.
# Variables: program (upcall or deflate), main (the program's main frame), truth ("spin qsort
# memcpy" in ms, upcall only).
# shellcheck disable=SC2016
analyse_awk='
function norm(f) {
  sub(/_\[[a-zA-Z0-9]+\]$/, "", f)                # type suffix (ann)
  gsub(/ \[clone [^]]*\]/, "", f)                 # clone parts
  if (sub(/^__GI_/, "", f)) sub(/^__/, "", f)     # glibc internal alias
  return f
}
# Splits a stack into s[1..n], normalised; kernel frames (async-profiler with ann: `_[k]`) are left
# out and counted in had_kernel.
function load(text,   raw, m, i) {
  m = split(text, raw, ";"); n = 0; had_kernel = 0
  for (i = 1; i <= m; i++) {
    if (who == "async-profiler" && raw[i] ~ /_\[k\]$/) { had_kernel = 1; continue }
    s[++n] = norm(raw[i])
  }
}
function abs(x) { return x < 0 ? -x : x }
function is_marker(f) { return f ~ /^\[/ && f != "[code cache]" && f != "[vdso]" && f !~ /^\[kernel/ }
function is_java(f) { return f ~ /^(jvmkit|java|javax|jdk|sun)\./ }
function is_root(f) { return f ~ /^(clone3|clone|start_thread|__libc_start_call|__libc_start_main)$/ }
function native_run(from, to,   i) {  # frames from..to (inclusive) are native and no marker
  for (i = from; i <= to; i++) if (is_java(s[i]) || is_marker(s[i])) return 0
  return 1
}
function find(name, from,   i) { for (i = from; i <= n; i++) if (s[i] == name) return i; return 0 }
# Root first: first frame, native frames, call_stub, P.main; returns the index of P.main or 0.
function rooted_main(   m) {
  if (!is_root(s[2])) return 0
  m = find(main, 2)
  if (m < 4 || s[m - 1] != "call_stub" || !native_run(2, m - 2)) return 0
  return m
}
function upcall_exact(   m, l, j) {
  m = rooted_main(); l = find("leaf", 2)
  if (!m || !l) return 0
  if (s[m + 1] != P "a" || s[m + 2] != P "n1" || s[m + 3] != "Java_jvmkit_test_walk_UpcallMain_n1" || s[m + 4] != "mid") return 0
  j = find("call_stub", m + 5)
  if (!j || j < m + 6 || !native_run(m + 5, j - 1)) return 0
  if (s[j + 1] != P "b" || s[j + 2] != P "n2" || s[j + 3] != "Java_jvmkit_test_walk_UpcallMain_n2" || j + 4 != l) return 0
  return native_run(l + 1, n)
}
function deflate_exact(   m, d, i) {
  m = rooted_main(); d = find("Java_java_util_zip_Deflater_deflateBytesBytes", 2)
  if (!m || !d || s[d - 1] != "java.util.zip.Deflater.deflateBytesBytes") return 0
  for (i = m + 1; i < d; i++) if (!is_java(s[i])) return 0
  return native_run(d + 1, n)
}
{
  count = $NF; line = $0; sub(/ [0-9]+$/, "", line)
  load(line)
  total += count
  tid = s[1]; sub(/.*tid=/, "", tid); sub(/\].*/, "", tid)
  by_tid[tid] += count
  stacks[NR] = line; counts[NR] = count; tids[NR] = tid
  if (main_tid == "" && find(main, 2)) main_tid = tid
}
END {
  for (r = 1; r <= NR; r++) {
    if (tids[r] != main_tid) continue
    load(stacks[r]); count = counts[r]
    main_samples += count
    if (had_kernel) kernel += count
    cut_here = !is_root(s[2])
    for (i = 2; i <= n; i++) if (is_marker(s[i])) cut_here = 1
    if (cut_here) cut += count
    if (program == "upcall") {
      l = find("leaf", 2)
      if (!l) continue
      reach += count
      top[s[n]] += count
      if (upcall_exact()) exact += count
      if (l == n) share["spin"] += count
      else {
        q = 0
        for (i = l + 1; i <= n; i++) if (s[i] ~ /qsort|msort|burn_compare/) q = 1
        if (q) share["qsort"] += count
        else if (l + 1 == n && s[n] ~ /mem(cpy|move)/) share["memcpy"] += count
        else share["other"] += count
      }
    } else {
      d = find("Java_java_util_zip_Deflater_deflateBytesBytes", 2)
      if (!d) continue
      reach += count
      top[s[n]] += count
      if (deflate_exact()) exact += count
    }
  }
  printf "samples=%d main=%d reach=%d exact=%d cut=%d kernel=%d", total, main_samples, reach, exact, cut, kernel
  if (program == "upcall") {
    split(truth, t, " "); all = t[1] + t[2] + t[3]
    tv = 0
    if (reach > 0 && all > 0) {
      tv += abs(share["spin"] / reach - t[1] / all) / 2 + abs(share["qsort"] / reach - t[2] / all) / 2
      tv += abs(share["memcpy"] / reach - t[3] / all) / 2 + share["other"] / reach / 2
    } else tv = 1
    printf " tv=%.4f spin=%d qsort=%d memcpy=%d other=%d truth=%.1f/%.1f/%.1f", tv, share["spin"], share["qsort"],
      share["memcpy"], share["other"], 100 * t[1] / all, 100 * t[2] / all, 100 * t[3] / all
  }
  # The leaf-most names, most frequent first (the five first, with their share of the reach).
  names = ""
  for (k = 0; k < 5; k++) {
    best = ""; bc = 0
    for (f in top) if (top[f] > bc) { best = f; bc = top[f] }
    if (bc == 0) break
    names = names (names == "" ? "" : ", ") best " " sprintf("%.1f%%", 100 * bc / reach)
    delete top[best]
  }
  gsub(/ /, "~", names)
  printf " names=%s\n", names
}'

# accuracy_run JDK PROGRAM WHO RUN -> the analysis line of one run (files kept under runs/)
accuracy_run() {
  local jdk=$1 program=$2 who=$3 r=$4 java lib="" main_class args=() base opts truth="" failed=0 line
  java="$(jdk_home "$jdk")/bin/java"
  base="$out_dir/runs/acc-$jdk-$program-$who-$r"
  case "$program" in
    upcall-fp) lib=$upcall_fp ;;
    upcall-nofp) lib=$upcall_nofp ;;
  esac
  if [ -n "$lib" ]; then
    main_class=jvmkit.test.walk.UpcallMain args=("-Djvmkit.upcall.lib=$lib")
  else
    main_class=jvmkit.test.walk.DeflateMain
  fi
  if [ "$who" = jvmkit ]; then
    opts="-agentpath:$agent=event=cpu,interval=${interval_ns}ns,cstack=native,threads,file=$base.collapsed"
  else
    opts="-agentpath:$ap=start,event=cpu,interval=$interval_ns,cstack=vmx,threads,dot,ann,collapsed,file=$base.collapsed"
  fi
  rm -f "$base.collapsed"
  "$java" "$opts" "${args[@]}" -XX:CICompilerCount=2 -cp "$walk_classes" "$main_class" "$seconds" \
    >"$base.out" 2>"$base.err" || { cat "$base.err" >&2; echo "run failed: $base" >&2; exit 1; }
  if [ -n "$lib" ]; then
    truth=$(sed -n -E 's/.*leaf spun ([0-9]+) ms.*in qsort ([0-9]+) ms.*in memcpy ([0-9]+) ms.*/\1 \2 \3/p' "$base.out")
    [ -n "$truth" ] || { echo "no truth in $base.out" >&2; exit 1; }
  fi
  if [ "$who" = jvmkit ]; then
    # Requests that ended in no stack: failed and dropped.
    failed=$(sed -n -E 's/.*samples requested [0-9]+, delivered [0-9]+, failed ([0-9]+), dropped ([0-9]+).*/\1 \2/p' "$base.err" |
      awk '{print $1 + $2}')
  fi
  line=$(awk -v who="$who" -v program="${program%%-*}" -v main="${main_class}.main" -v P="${main_class}." -v truth="$truth" \
    "$analyse_awk" "$base.collapsed")
  echo "$line failed=${failed:-0}"
}

field() { sed -n -E "s/.*(^| )$1=([^ ]*).*/\2/p"; }  # field KEY <<< LINE

accuracy() {
  local jdk program who r line key
  declare -A lines
  echo "## Accuracy: cpu every 1 ms, $runs runs per profiler, program and JDK, ${seconds} s each (interleaved)"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  for jdk in ${jdk_list//,/ }; do
    for program in ${programs//,/ }; do
      case "$program" in upcall-fp | upcall-nofp | deflate) ;; *) echo "--programs: upcall-fp, upcall-nofp or deflate, not '$program'"; exit 2 ;; esac
      for ((r = 1; r <= runs; r++)); do
        for who in jvmkit async-profiler; do
          line=$(accuracy_run "$jdk" "$program" "$who" "$r")
          lines["$jdk $program $who"]+="$line"$'\n'
          echo "JDK $jdk $program run $r $who: ${line//\~/ } (load $(cut -d' ' -f1 /proc/loadavg))"
        done
      done
    done
  done
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| JDK | program | profiler | samples (mean) | main thread (mean) | in reach (mean) | exact order: mean (min) | TV: mean (max) | cut: mean | failed: mean | kernel on top: mean | leaf-most names (last run) |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  for jdk in ${jdk_list//,/ }; do
    for program in ${programs//,/ }; do
      for who in jvmkit async-profiler; do
        key="$jdk $program $who"
        printf '%s' "${lines[$key]}" | awk -v jdk="$jdk" -v program="$program" -v who="$who" '
          function get(k,   r) { r = $0; if (!sub(".*(^| )" k "=", "", r)) return ""; sub(/ .*/, "", r); return r }
          { n++; samples += get("samples"); main += get("main"); reach += get("reach"); cut += get("cut"); failed += get("failed"); kernel += get("kernel")
            e = get("reach") > 0 ? get("exact") / get("reach") : 0; exact += e; if (n == 1 || e < emin) emin = e
            tv = get("tv"); if (tv != "") { tvs += tv; if (tv > tvmax) tvmax = tv; has_tv = 1 }
            names = get("names"); gsub(/~/, " ", names) }
          END { printf "| %s | %s | %s | %.0f | %.0f | %.0f | %.2f%% (%.2f%%) | %s | %.1f (%.2f%%) | %.1f | %.1f | %s |\n", jdk, program, who,
                  samples / n, main / n, reach / n, 100 * exact / n, 100 * emin,
                  has_tv ? sprintf("%.4f (%.4f)", tvs / n, tvmax) : "-", cut / n, (main > 0 ? 100 * cut / main : 0), failed / n, kernel / n, names }'
      done
    done
  done
}

# rounds_for JDK -> the cost workload's rounds on JDK (see --rounds)
rounds_for() {
  case "$rounds_arg" in
    *s)
      local probe=40 ns
      ns=$("$1/bin/java" -cp "$prof_classes" jvmkit.test.profiler.NativeOverheadWorkload "$probe" | awk '{print $4}')
      if [ -z "$ns" ] || [ "$ns" -le 0 ]; then echo "calibration run failed on $1" >&2; exit 1; fi
      awk -v s="${rounds_arg%s}" -v p="$probe" -v ns="$ns" 'BEGIN { printf "%d\n", s * 1e9 * p / ns }' ;;
    *) echo "$rounds_arg" ;;
  esac
}

# cost_run JDK CONFIG ROUNDS -> "wall_ns cpu_ns main_cpu_ns process_cpu_s samples timed_main_samples"
cost_run() {
  local java=$1/bin/java config=$2 rounds=$3 agent_args=() base="$tmp/cost" samples main failed=0
  case "$config" in
    none) ;;
    jvmkit-no) agent_args=("-agentpath:$agent=event=cpu,interval=${interval_ns}ns,cstack=no,file=$base.collapsed") ;;
    jvmkit-default) agent_args=("-agentpath:$agent=event=cpu,interval=${interval_ns}ns,file=$base.collapsed") ;;
    ap-vm) agent_args=("-agentpath:$ap=start,event=cpu,interval=$interval_ns,cstack=vm,dot,collapsed,file=$base.collapsed") ;;
    ap-vmx) agent_args=("-agentpath:$ap=start,event=cpu,interval=$interval_ns,cstack=vmx,dot,collapsed,file=$base.collapsed") ;;
  esac
  rm -f "$base.collapsed"
  /usr/bin/time -f '%U %S' -o "$base.time" "$java" "${agent_args[@]}" -cp "$prof_classes" \
    jvmkit.test.profiler.NativeOverheadWorkload "$rounds" >"$base.out" 2>"$base.err" ||
    { cat "$base.err" >&2; echo "cost run failed: $config" >&2; exit 1; }
  cp "$base.err" "$out_dir/runs/cost-last-$config.err"
  samples=0 main=0
  if [ -f "$base.collapsed" ]; then
    read -r samples main < <(awk '{ t += $NF } /NativeOverheadWorkload\.main(_\[[a-z0-9]\])?;/ { m += $NF } END { print t + 0, m + 0 }' "$base.collapsed")
  fi
  case "$config" in
    jvmkit-*) failed=$(sed -n -E 's/.*samples requested [0-9]+, delivered [0-9]+, failed ([0-9]+), dropped ([0-9]+).*/\1 \2/p' "$base.err" |
      awk '{print $1 + $2}') ;;
  esac
  awk -v samples="$samples" -v failed="${failed:-0}" -v main="$main" -v times="$(cat "$base.time")" '
    $1 == "elapsed_ns" { split(times, t, " ")
      # The timed phase takes cpu_ns of main()'"'"'s main_cpu_ns: that share of its samples.
      printf "%s %s %s %.3f %d %.0f\n", $2, $4, $6, t[1] + t[2], samples + failed, ($6 > 0 ? main * $4 / $6 : 0) }' "$base.out"
}

# paired_differences: jvmkit's default against async-profiler's default run by run. The runs of
# one repetition are neighbours in time, so their difference cancels the machine's slow drift that
# widens each configuration's own spread.
paired_differences() {
  case ",$config_list," in *,jvmkit-default,*) ;; *) return 0 ;; esac
  case ",$config_list," in *,ap-vm,*) ;; *) return 0 ;; esac
  echo
  echo "Paired, repetition by repetition: jvmkit default - async-profiler default (s)"
  echo
  echo "| JDK | measure | median difference | quartiles | jvmkit lower in |"
  echo "|---|---|---|---|---|"
  local jdk col
  for jdk in ${jdk_list//,/ }; do
    for col in 3 4; do
      paste -d' ' <(cut -d' ' -f"$col" "$out_dir/runs/cost-$jdk-jvmkit-default.txt") \
        <(cut -d' ' -f"$col" "$out_dir/runs/cost-$jdk-ap-vm.txt") |
        awk -v scale="$([ "$col" = 3 ] && echo 1e9 || echo 1)" '{ print ($1 - $2) / scale }' | sort -g |
        awk -v jdk="$jdk" -v what="$([ "$col" = 3 ] && echo "main-thread CPU" || echo "process CPU")" '
          { d[NR] = $1; if ($1 < 0) lower++ }
          END { lo = int((NR + 3) / 4); med = (NR % 2) ? d[(NR + 1) / 2] : (d[NR / 2] + d[NR / 2 + 1]) / 2
                printf "| %s | %s | %+.3f | %+.3f to %+.3f | %d of %d |\n", jdk, what, med, d[lo], d[NR + 1 - lo], lower, NR }'
    done
  done
}

cost() {
  local jdk java version rounds config r
  local configs
  read -r -a configs <<<"${config_list//,/ }"
  local notes=()
  echo "## Cost: NativeOverheadWorkload, cpu every $interval_arg, $reps repetitions x {${configs[*]}} in a random order, rounds: $rounds_arg"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| JDK | rounds | config | median wall (s) | median main CPU (s) | median process CPU (s) | process CPU quartiles (s) | wall ratio | main CPU ratio | process CPU ratio | samples (median, all threads) | timed-phase samples of main (median) | us per sample, main thread | us per sample, process |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  for jdk in ${jdk_list//,/ }; do
    java=$(jdk_home "$jdk")
    version=$("$java/bin/java" -version 2>&1 | head -1 | sed 's/.*version "\([^"]*\)".*/\1/')
    rounds=$(rounds_for "$java")
    for config in "${configs[@]}"; do : >"$tmp/$config"; done
    for ((r = 0; r < reps; r++)); do
      for config in $(printf '%s\n' "${configs[@]}" | shuf); do
        cost_run "$java" "$config" "$rounds" >>"$tmp/$config"
      done
    done
    # jvmkit's own account of its last run with its default (mixed stacks): requests, failures, unwind tables.
    if [ -f "$out_dir/runs/cost-last-jvmkit-default.err" ]; then
      notes+=("JDK $version, last jvmkit-default run: $(grep -E 'samples requested|native: (native parts|unwind tables)' \
        "$out_dir/runs/cost-last-jvmkit-default.err" | sed 's/^jvmkit profiler: //' | tr '\n' ';')")
    fi
    for config in "${configs[@]}"; do
      cp "$tmp/$config" "$out_dir/runs/cost-$jdk-$config.txt"
      local med=() base=()
      for col in 1 2 4 5 6; do
        med+=("$(cut -d' ' -f"$col" "$tmp/$config" | median)")
        base+=("$(cut -d' ' -f"$col" "$tmp/none" | median)")
      done
      local spread
      spread=$(cut -d' ' -f4 "$tmp/$config" | quartiles)
      awk -v v="$version" -v rounds="$rounds" -v c="$config" -v w="${med[0]}" -v cpu="${med[1]}" -v p="${med[2]}" -v q="$spread" \
          -v s="${med[3]}" -v ms="${med[4]}" -v bw="${base[0]}" -v bc="${base[1]}" -v bp="${base[2]}" 'BEGIN {
        per_main = ms > 0 ? sprintf("%.1f", (cpu - bc) / 1e3 / ms) : "-"
        per_proc = s > 0 ? sprintf("%.1f", (p - bp) * 1e6 / s) : "-"
        split(q, qs, " ")
        printf "| %s | %s | %s | %.3f | %.3f | %.3f | %.2f-%.2f | %.3f | %.3f | %.3f | %d | %d | %s | %s |\n", v, rounds, c, w / 1e9, cpu / 1e9, p,
               qs[1], qs[2], w / bw, cpu / bc, p / bp, s, ms, per_main, per_proc }'
    done
  done
  echo
  for note in "${notes[@]}"; do echo "- $note"; done
  paired_differences
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "each run: wall_ns cpu_ns main_cpu_ns process_cpu_s samples timed_main_samples in $out_dir/runs/cost-JDK-CONFIG.txt"
}

{
  echo "# native frames against async-profiler: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs"
  echo "# jvmkit $(git describe --always --dirty 2>/dev/null || echo '?') (the tree now; $build built $(date -u -r "$agent" '+%H:%M UTC')), async-profiler: $ap ($("$(dirname "$ap")/../bin/asprof" --version 2>/dev/null | head -1 || echo 'version unknown'))"
  for jdk in ${jdk_list//,/ }; do echo "# JDK $jdk: $("$(jdk_home "$jdk")/bin/java" -version 2>&1 | head -1)"; done
  echo
  case ",$parts," in *,accuracy,*) accuracy; echo ;; esac
  case ",$parts," in *,cost,*) cost ;; esac
} | tee "$result"
echo "results: $result"
