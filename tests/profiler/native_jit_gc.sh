#!/usr/bin/env bash
# Native frames (cstack=native) while HotSpot's own threads work hard: NativeJitGc's two phases,
# each a run of its own (cpu, 1 ms, ann, threads), the main thread's CPU split between three
# methods with shares the program measured (ThreadMXBean, around each call):
#  - jit (G1): fresh classes defined, verified, run and compiled by C1 and C2 all the time;
#  - gc (G1, -Xmx128m): short- and medium-lived objects; the same under ZGC.
# Every run checks:
#  - the report adds up (report_counts.sh), at most 1% dropped;
#  - native parts cut short (the report's markers, counted under the collapsed output's roots by
#    thread kind), in three classes, each a limit of its own, overall and for each thread kind
#    with at least 500 samples:
#      MAX_CUT   every marker but the two below;
#      MAX_ASM   no_unwind_info in HotSpot's hand-written assembly without call-frame information
#                (libjvm's SpinPause and Copy routines, the code cache's flush_icache_stub);
#      MAX_JAVA  the Java side, of the Java threads' samples: the report's failed walks (never a
#                compiler or GC thread: checked) and java_unwalkable markers;
#  - everything lost of a stack, of all samples: failed walks and native parts cut short, every
#    class of marker together, at most MAX_LOST;
#  - the thread kinds (the report's "samples by thread kind") against the kernel's CPU time of
#    each thread (/proc/self/task/*/schedstat at the phase's end, written by the program):
#    compiler threads in jit, GC threads in gc at least MIN_KIND of the samples; the
#    total-variation distance over (compiler, GC, the rest) at most MAX_KIND_TVD;
#  - compiler threads' stacks with their JIT frames (jit), GC workers' with the collector's (gc);
#  - the main thread's Java leaf shares within MAX_TVD of the measured truth (CheckProfile). The
#    three methods are kept apart (dontinline): this test is about what the phases do to the
#    walks, accuracy_inlining about inlining.
# HotSpot starts GC workers and compiler threads on demand (UseDynamicNumberOf{GC,Compiler}Threads,
# on by default): cpu arms those within 200 ms of their start (its thread listing), so every thread
# of the JVM's with 300 ms of CPU time or more must have samples of its own.
# Usage: native_jit_gc.sh JAVA AGENT CLASSES OUTDIR JDK_FEATURE [MAX_CUT MAX_ASM MAX_JAVA MAX_LOST]
# (default 0.005 each)
set -uo pipefail
# shellcheck source=report_counts.sh
source "$(dirname "$0")/report_counts.sh"
java=$1 agent=$2 classes=$3 outdir=$4 feature=$5
max_cut=${6:-0.005} max_asm=${7:-0.005} max_java=${8:-0.005} max_lost=${9:-0.005}
max_tvd=${MAX_TVD:-0.05}
min_kind=${MIN_KIND:-0.02} max_kind_tvd=${MAX_KIND_TVD:-0.10}
cpu_seconds=${CPU_SECONDS:-2}
mkdir -p "$outdir"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
summary=()

# le A B: A <= B (decimals). within N OF LIMIT: N <= OF * LIMIT. per_mille N OF.
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
within() { awk -v n="$1" -v t="$2" -v m="$3" 'BEGIN { exit !(n <= t * m) }'; }
per_mille() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? 1000 * a / b : 0) }'; }

# run NAME PHASE [JVM args...]: the phase under the agent, then every check above.
run() {
  local name=$1 phase=$2
  shift 2
  local collapsed="$outdir/$name.collapsed" log="$outdir/$name.log" truth="$outdir/$name.truth"
  local kinds_file="$outdir/$name.threads"
  rm -f "$collapsed" "$log" "$truth" "$kinds_file"
  local figures=()
  local cmd=("$java"
    -XX:CompileCommand=quiet "-XX:CompileCommand=dontinline,jvmkit.test.profiler.NativeJitGc::*" "$@"
    "-agentpath:$agent=interval=1ms,cstack=native,ann,threads,file=$collapsed"
    -cp "$classes" jvmkit.test.profiler.NativeJitGc "$phase" "$cpu_seconds" "$truth" "$kinds_file")
  echo "+ ${cmd[*]}"
  local start=$SECONDS
  if ! "${cmd[@]}" 2>"$log"; then
    cat "$log"
    fail "$name: the profiled program failed"
    return
  fi
  grep '^jvmkit profiler' "$log" | grep -v '^jvmkit profiler: top methods' | cut -c1-300
  echo "($((SECONDS - start)) s)"
  [ -s "$collapsed" ] || { fail "$name: no profile written"; return; }

  # The report's counts.
  local requested delivered failed dropped not_java no_java_code counts_error
  report_counts "$log" || { fail "$name: $counts_error"; return; }
  [ "$dropped" -le $((requested / 100)) ] || fail "$name: more than 1% dropped ($dropped of $requested)"
  local traces markers java_n compiler_n gc_n vm_n
  traces=$(sed -n -E 's/.*native: [0-9]+ of ([0-9]+) traces .*/\1/p' "$log")
  markers=$(sed -n -E 's/.*native parts ended short \(markers\): (.*)/\1/p' "$log" |
    grep -oE '[a-z_]+ [0-9]+ \(' | awk '{ n += $2 } END { print n + 0 }')
  read -r java_n compiler_n gc_n vm_n < <(sed -n -E \
    's/.*samples by thread kind: Java threads ([0-9]+) .*, compiler threads ([0-9]+) .*, GC threads ([0-9]+) .*, other VM threads ([0-9]+) .*/\1 \2 \3 \4/p' "$log")
  [ -n "${traces:-}" ] && [ -n "${vm_n:-}" ] || { fail "$name: the report lacks its native section"; return; }
  local failed_reasons
  failed_reasons=$(sed -n 's/.*failed by reason: //p' "$log")
  printf '%s: samples %d, failed %d (%.1f per mille: %s), native parts cut %d (%.1f per mille of %d traces)\n' \
    "$name" "$requested" "$failed" "$(awk -v a="$failed" -v b="$requested" 'BEGIN { print 1000 * a / b }')" \
    "${failed_reasons:-none}" "$markers" "$(awk -v a="$markers" -v b="$traces" 'BEGIN { print 1000 * a / b }')" "$traces"
  if grep 'failed by thread' "$log" | grep -E "'(C[12] CompilerThre|GC Thread|G1 |Z[A-Z])" >/dev/null; then
    fail "$name: compiler or GC threads among the failures: $(grep 'failed by thread' "$log")"
  fi

  # Markers by thread kind, from the collapsed output's roots ([name tid=N]; the kinds as the
  # report's, with Java threads and other VM threads together), in three classes:
  #  - asm: no_unwind_info where the native part's only frame is HotSpot's hand-written assembly
  #    without call-frame information (libjvm's SpinPause and Copy routines, named libjvm.so+0x...;
  #    the code cache's flush_icache_stub);
  #  - java: java_unwalkable (the Java frames below could not be walked), a Java-side outcome as
  #    the report's failed walks are (not_walkable: the same without native frames);
  #  - cut: every other marker.
  local per_kind
  per_kind=$(awk '
    function kind(root) {
      if (root ~ /^\[(C1 CompilerThre|C2 CompilerThre|JVMCI Compiler)/) return "compiler"
      if (root ~ /^\[(GC Thread|G1 |ConcGC|Parallel GC|Shenandoah|Z[A-Z])/) return "GC"
      return "Java+VM"
    }
    { n = $NF; root = substr($0, 1, index($0, ";") - 1); k = kind(root); all[k] += n
      if (match($0, /;\[(unprepared library|unknown code|no unwind info|unsupported rule|bad frame|native depth|join mismatch|no stack bounds|java unwalkable|not captured)\]/)) {
        m = substr($0, RSTART + 1, RLENGTH - 1); rest = substr($0, RSTART + RLENGTH); sub(/ [0-9]+$/, "", rest)
        if (m == "[no unwind info]" && rest ~ /^;(libjvm\.so\+0x[0-9a-f]+|flush_icache(_final)?_stub)$/) c = "asm"
        else if (m == "[java unwalkable]") c = "java"
        else c = "cut"
        count[k, c] += n; what[k, c, m rest] += n } }
    END {
      for (k in all) {
        line = k " " all[k] " " count[k, "cut"] + 0 " " count[k, "asm"] + 0 " " count[k, "java"] + 0
        for (key in what) { split(key, p, SUBSEP); if (p[1] == k) line = line " " p[3] "=" what[key] }
        print line } }' "$collapsed")
  local java_side=$failed java_base=$failed cut_all=0 asm_all=0
  while read -r kind all cut asm java_cut why; do
    [ -n "$kind" ] || continue
    printf '%s:   %-9s samples %5d; markers: cut %d (%.1f per mille), assembly without CFI %d (%.1f), java_unwalkable %d (%.1f)%s\n' \
      "$name" "$kind" "$all" "$cut" "$(per_mille "$cut" "$all")" "$asm" "$(per_mille "$asm" "$all")" \
      "$java_cut" "$(per_mille "$java_cut" "$all")" "${why:+: $why}"
    cut_all=$((cut_all + cut)) asm_all=$((asm_all + asm)) java_side=$((java_side + java_cut))
    [ "$kind" = Java+VM ] && java_base=$((java_base + all))
    if [ "$all" -ge 500 ] && ! within "$cut" "$all" "$max_cut"; then
      fail "$name: $cut of the $all samples of $kind threads cut short (> $max_cut): $why"
    fi
    if [ "$all" -ge 500 ] && ! within "$asm" "$all" "$max_asm"; then
      fail "$name: $asm of the $all samples of $kind threads end in HotSpot's assembly without CFI (> $max_asm)"
    fi
  done <<<"$per_kind"
  within "$cut_all" "$traces" "$max_cut" || fail "$name: $cut_all of $traces native parts cut short (> $max_cut)"
  # Java-side: failed walks (all on Java threads: checked above for compiler and GC threads) and
  # java_unwalkable markers, of the Java threads' samples.
  printf '%s: Java side: %d of %d samples of Java threads (%.1f per mille): failed %d (%s), java_unwalkable %d\n' \
    "$name" "$java_side" "$java_base" "$(per_mille "$java_side" "$java_base")" "$failed" "${failed_reasons:-none}" \
    $((java_side - failed))
  within "$java_side" "$java_base" "$max_java" ||
    fail "$name: $java_side of $java_base samples of Java threads failed or Java-unwalkable (> $max_java)"
  # Every sample with less than its whole stack: a failed walk, or a native part that ends in a
  # marker of any class (cut, assembly without CFI, java_unwalkable).
  local lost=$((java_side + cut_all + asm_all))  # java_side counts the failed walks too
  echo "$name: lost: $lost of $requested samples ($(per_mille "$lost" "$requested") per mille): failed $failed, native parts ended by a marker $((lost - failed))"
  within "$lost" "$requested" "$max_lost" || fail "$name: $lost of $requested samples failed or cut short (> $max_lost)"
  figures+=("$(printf 'failed %.1f, cut %.1f, asm %.1f (GC threads %.1f), java-side %.1f per mille' \
    "$(per_mille "$failed" "$requested")" "$(per_mille "$cut_all" "$traces")" "$(per_mille "$asm_all" "$traces")" \
    "$(awk '$1 == "GC" && $2 > 0 { v = 1000 * $4 / $2 } END { printf "%.1f", v }' <<<"$per_kind")" \
    "$(per_mille "$java_side" "$java_base")")")

  # Thread kinds against the kernel's CPU time per thread.
  local truth_kinds kind_tvd
  truth_kinds=$(awk '
    { name = $0; sub(/^cpu [0-9]+ /, "", name); ns = $2
      if (name ~ /^jvmkit/) next   # the profiler'"'"'s own threads: never sampled by cpu
      if (name ~ /^(C1 CompilerThre|C2 CompilerThre|JVMCI Compiler)/) c += ns
      else if (name ~ /^(GC Thread|G1 |ConcGC|Parallel GC|Shenandoah|Z[A-Z])/) g += ns
      else r += ns }
    END { t = c + g + r; printf "%.4f %.4f %.4f\n", c / t, g / t, r / t }' "$kinds_file")
  local tc tg tr
  read -r tc tg tr <<<"$truth_kinds"
  local sampled=$((java_n + compiler_n + gc_n + vm_n))
  local mc mg mr
  read -r mc mg mr < <(awk -v c="$compiler_n" -v g="$gc_n" -v s="$sampled" \
    'BEGIN { printf "%.4f %.4f %.4f\n", c / s, g / s, (s - c - g) / s }')
  kind_tvd=$(awk -v a="$mc $mg $mr" -v b="$tc $tg $tr" \
    'BEGIN { split(a, x, " "); split(b, y, " "); for (i = 1; i <= 3; i++) d += (x[i] > y[i] ? x[i] - y[i] : y[i] - x[i]); printf "%.4f\n", d / 2 }')
  echo "$name: thread kinds, sampled (kernel's CPU time): compiler $mc ($tc), GC $mg ($tg), Java and other VM $mr ($tr); TV $kind_tvd"
  le "$kind_tvd" "$max_kind_tvd" || fail "$name: thread kinds' shares TV $kind_tvd from the kernel's CPU time (> $max_kind_tvd)"
  # Every busy thread of HotSpot's, those started after sampling began included, was sampled.
  local busy
  while IFS= read -r busy; do
    grep -qF "[$busy tid=" "$collapsed" || fail "$name: thread '$busy' used 300 ms of CPU or more but has no samples"
  done < <(awk '{ name = $0; sub(/^cpu [0-9]+ /, "", name)
      if ($2 >= 300000000 && name != "java" && name !~ /^jvmkit/) print name }' "$kinds_file" | sort -u)
  case $phase in
    jit)
      le "$min_kind" "$mc" || fail "$name: compiler threads have $mc of the samples (< $min_kind)"
      grep -qE '^\[C2 CompilerThre tid=[0-9]+\];.*CompileBroker::compiler_thread_loop;.*C2Compiler::compile_method' "$collapsed" ||
        fail "$name: no C2 compiler thread stack through C2Compiler::compile_method"
      grep -qE '^\[C1 CompilerThre tid=[0-9]+\];.*CompileBroker::compiler_thread_loop;.*Compilation::compile_method' "$collapsed" ||
        fail "$name: no C1 compiler thread stack through Compilation::compile_method"
      ;;
    gc)
      le "$min_kind" "$mg" || fail "$name: GC threads have $mg of the samples (< $min_kind)"
      if [[ " $* " == *" -XX:+UseZGC "* ]]; then
        grep -qE '^\[Z[A-Za-z]+(#[0-9]+)? tid=[0-9]+\];.*;Z[A-Za-z]+::' "$collapsed" ||
          fail "$name: no ZGC thread stack with ZGC's frames"
      else
        grep -qE '^\[GC Thread#[0-9]+ tid=[0-9]+\];.*;G1[A-Za-z]+::' "$collapsed" ||
          fail "$name: no GC worker stack with G1's frames"
      fi
      ;;
  esac

  # The main thread's samples whose stack does not reach its first Java frame (NativeJitGc.main),
  # printed; and those of them with the program's own frames: a Java part cut short, or with
  # callers from the wrong stack slots, without a marker (<= 5 per mille). C2's out-of-line GC
  # barrier stubs (G1's SATB pre-barrier on JDK 25) call the VM below a spill of live registers;
  # walked from the call's SP, their frames got one Java frame or stale callers (21-40 per mille).
  local main_all main_short main_wrong
  read -r main_all main_short main_wrong < <(awk '/^\[main tid=/ { a += $NF; if ($0 !~ /NativeJitGc\.main_/) {
      s += $NF; if ($0 ~ /jvmkit\.test\.profiler\.NativeJitGc\./) w += $NF } }
    END { print a + 0, s + 0, w + 0 }' "$collapsed")
  echo "$name: main thread: $main_short of $main_all samples ($(per_mille "$main_short" "$main_all") per mille) without NativeJitGc.main below, $main_wrong with the program's frames above"
  [ $((main_wrong * 200)) -le "$main_all" ] ||
    fail "$name: $main_wrong of the main thread's $main_all samples have the program's frames but not NativeJitGc.main below"

  # The main thread's leaf shares.
  local check
  check=$("$java" -cp "$classes" jvmkit.test.profiler.CheckProfile "$collapsed" "$truth" "$max_tvd")
  echo "$check" | sed "s/^/$name: /"
  grep -q '^PASS' <<<"$check" || fail "$name: the main thread's shares ($(grep '^FAIL' <<<"$check"))"
  local tvd
  tvd=$(sed -n 's/^total-variation distance \([0-9.]*\).*/\1/p' <<<"$check")
  summary+=("$(printf '%-7s TV %s; %s; kinds: compiler %s GC %s (kernel: %s %s, TV %s)' \
    "$name" "${tvd:-?}" "${figures[0]}" "$mc" "$mg" "$tc" "$tg" "$kind_tvd")")
}

run jit jit -XX:+UseG1GC
run gc_g1 gc -XX:+UseG1GC -Xmx128m
run gc_zgc gc -XX:+UseZGC -Xmx128m

echo "--- summary ($("$java" -version 2>&1 | head -1))"
printf '%s\n' "${summary[@]}"
[ $failures -eq 0 ] && echo PASS || exit 1
