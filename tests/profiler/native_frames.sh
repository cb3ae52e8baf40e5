#!/usr/bin/env bash
# Native frames (cstack=native) on a program that spends most of its CPU in zlib through
# java.util.zip.Deflater (DeflateMain of the stack-walk tests):
#  - collapsed (ann, threads): at least half of the samples have deflateBytesBytes with zlib's
#    deflate above it; HotSpot's compiler threads have samples of their own (JVM frames under a
#    root of their own), counted as traces by thread kind and never as failures;
#  - the same run with cstack=no: no native frame, no native section in the report, the compiler
#    threads' samples counted without Java code (not failed);
#  - html in headless Chromium: the native types drawn, in their colours (a screenshot's pixels);
#  - pprof read by go tool pprof: zlib's functions with their CPU time.
# JDK 17 uses the system's libz.so.1, whose .dynsym names only exported functions (deflate, not
# deflate_slow or longest_match: those show as libz.so.1+0x...); Temurin 25's libzip.so embeds
# zlib with a .symtab. Usage: native_frames.sh JAVA AGENT WALK_CLASSES OUTDIR
set -uo pipefail
# shellcheck source=report_counts.sh
source "$(dirname "$0")/report_counts.sh"
java=$1 agent=$2 classes=$3 outdir=$4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$outdir"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# profile NAME OPTIONS SECONDS: DeflateMain under the agent; its stderr (the report) in NAME.log.
profile() {
  local name=$1 options=$2 seconds=$3
  rm -f "$outdir/$name".*
  echo "+ $java -agentpath:$agent=$options -cp $classes jvmkit.test.walk.DeflateMain $seconds"
  "$java" "-agentpath:$agent=$options" -cp "$classes" jvmkit.test.walk.DeflateMain "$seconds" 2>"$outdir/$name.log" ||
    { cat "$outdir/$name.log"; echo "FAIL: the profiled program failed"; exit 1; }
  grep '^jvmkit profiler' "$outdir/$name.log" | grep -v '^jvmkit profiler: top methods' | cut -c1-240
}

# The report's counts add up (report_counts.sh).
counts_add_up() {
  report_counts "$1" || fail "$counts_error"
}

# --- cstack=native, collapsed ---------------------------------------------------------------------
profile native "interval=1ms,cstack=native,ann,threads,file=$outdir/native.collapsed" 3
collapsed="$outdir/native.collapsed"
log="$outdir/native.log"
[ -s "$collapsed" ] || { echo "FAIL: no profile written"; exit 1; }
# Per line: its samples, whether deflateBytesBytes is on the stack with deflate above it (leafward),
# and whether the leaf is zlib's (a named zlib function, or an offset in libz.so.1).
read -r total with_deflate zlib_leaf < <(awk '
  { n = $NF; stack = substr($0, 1, length($0) - length(n) - 1); k = split(stack, f, ";"); total += n
    at = 0; for (i = 1; i <= k; i++) if (f[i] == "java.util.zip.Deflater.deflateBytesBytes_[n]") at = i
    if (at > 0) for (i = at + 1; i <= k; i++) if (f[i] == "deflate") { with_deflate += n; break }
    if (at > 0 && f[k] ~ /^(deflate|deflate_slow|deflate_fast|deflate_stored|longest_match|fill_window|slide_hash|compress_block|send_tree|build_tree|pqdownheap|gen_bitlen|_tr_flush_block|_tr_stored_block|adler32(_z)?|crc32(_z)?|libz\.so\.1\+0x[0-9a-f]+)$/) zlib_leaf += n }
  END { print total + 0, with_deflate + 0, zlib_leaf + 0 }' "$collapsed")
echo "samples $total; with deflate above deflateBytesBytes $with_deflate; zlib leaf $zlib_leaf"
[ "$total" -ge 1000 ] || fail "only $total samples (expected about 3,000 at 1 ms)"
[ $((with_deflate * 2)) -ge "$total" ] || fail "deflate above Deflater.deflateBytesBytes in $with_deflate of $total samples (< 50%)"
[ $((zlib_leaf * 2)) -ge "$total" ] || fail "a zlib leaf in $zlib_leaf of $total samples (< 50%)"
# The native section: traces with native frames, markers, samples by thread kind, the tables.
for line in "native: .* traces (.*) with native frames" "native: native parts ended short" \
            "native: samples by thread kind: Java threads" "native: unwind tables of [1-9][0-9]* objects"; do
  grep -q "jvmkit profiler: $line" "$log" || fail "the report lacks '$line'"
done
compiler=$(sed -n -E 's/.*samples by thread kind: .*compiler threads ([0-9]+) .*/\1/p' "$log")
[ -n "$compiler" ] && [ "$compiler" -gt 0 ] || fail "no samples of compiler threads (${compiler:-?})"
grep 'failed by thread' "$log" | grep 'CompilerThre' >/dev/null && fail "compiler threads counted as failures"
grep -q '^\[C[12] CompilerThre tid=[0-9]*\];.*CompileBroker::compiler_thread_loop' "$collapsed" ||
  fail "no compiler thread root with its JVM frames (threads)"
counts_add_up "$log"

# --- cstack=no: today's profile, Java frames only ---------------------------------------------------
profile java "interval=1ms,cstack=no,ann,threads,file=$outdir/java.collapsed" 2
# With ann every Java frame has a type suffix; roots and synthetic frames are [bracketed].
unsuffixed=$(awk '{ n = $NF; stack = substr($0, 1, length($0) - length(n) - 1); k = split(stack, f, ";")
  for (i = 1; i <= k; i++) if (f[i] !~ /_\[[0jink]\]$/ && f[i] !~ /^\[.*\]$/) print f[i] }' "$outdir/java.collapsed" | sort -u)
[ -z "$unsuffixed" ] || fail "cstack=no has frames that are not Java frames: $(head -5 <<<"$unsuffixed" | tr '\n' ' ')"
grep -q 'jvmkit profiler: native:' "$outdir/java.log" && fail "cstack=no has a native section in its report"
counts_add_up "$outdir/java.log"
# The JIT compiler threads ran (they compile the program's first seconds): without native frames
# their samples are counted "without Java code", by thread, and not as failures.
[ "${no_java_code:-0}" -gt 0 ] || fail "cstack=no: no sample counted without Java code"
grep "without Java code by thread: .*CompilerThre" "$outdir/java.log" >/dev/null ||
  fail "cstack=no: the compiler threads are not named among the samples without Java code"
grep 'failed by thread' "$outdir/java.log" | grep 'CompilerThre' >/dev/null &&
  fail "cstack=no: compiler threads counted as failures"

# --- html in headless Chromium ----------------------------------------------------------------------
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ -x "$chromium" ]; then
  page="$outdir/native.html"
  profile native_html "interval=1ms,cstack=native,file=$page" 2
  profile_dir=$(mktemp -d)
  trap 'rm -rf "$profile_dir"' EXIT
  chrome() {
    timeout 90 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
      --user-data-dir="$profile_dir" --enable-logging=stderr --v=0 --window-size=1000,700 --hide-scrollbars "$@" \
      2>>"$outdir/chromium.log"
  }
  : >"$outdir/chromium.log"
  dom=$(chrome --dump-dom "file://$page#search=deflate")
  grep -q 'data-status="ok"' <<<"$dom" || fail "the page did not finish rendering (data-status)"
  grep -q '<body[^>]*data-errors' <<<"$dom" && fail "script error: $(grep -o '<body[^>]*>' <<<"$dom")"
  for t in 7 8; do grep -q "class=\"f t$t" <<<"$dom" || fail "no frame drawn as type $t"; done
  grep -qF '.t7 { background: #e06666; }' <<<"$dom" || fail "no colour for native code"
  grep -qF '<span class="t7">native code</span><span class="t8">JVM</span>' <<<"$dom" || fail "no legend of the native types"
  matched=$(grep -o 'data-matched="[0-9]*"' <<<"$dom" | grep -o '[0-9]*')
  [ -n "$matched" ] && [ "$matched" -gt 0 ] || fail "search for deflate matched nothing"
  # The colours as drawn: a screenshot's pixels of native code (red) and the JVM (amber).
  (cd "$outdir" && chrome --screenshot="$outdir/native.png" "file://$page" >/dev/null)
  if [ -s "$outdir/native.png" ]; then
    pixels=$(/usr/bin/python3 "$here/png_colours.py" "$outdir/native.png" e06666 d9a441)
    echo "pixels drawn: $(tr '\n' ' ' <<<"$pixels")"
    while read -r colour n; do
      [ "$n" -gt 500 ] || fail "only $n pixels of #$colour drawn"
    done <<<"$pixels"
  else
    fail "no screenshot"
  fi
  grep -iE 'Uncaught|CONSOLE.*(error|exception)|:ERROR:CONSOLE' "$outdir/chromium.log" && fail "console errors (above)"
else
  fail "$chromium not found (scripts/setup.sh installs Debian's chromium)"
fi

# --- pprof, read by go tool pprof ---------------------------------------------------------------------
go=${GO:-$(command -v go || echo /usr/bin/go)}
if [ -x "$go" ]; then
  pprof="$outdir/native.pb.gz"
  profile native_pprof "interval=1ms,cstack=native,file=$pprof" 2
  export HOME=${HOME:-$outdir} GOCACHE="$outdir/gocache" GOTOOLCHAIN=local  # never download a toolchain
  top=$(cd "$outdir" && timeout 120 "$go" tool pprof -top "$pprof" 2>&1) || { echo "$top"; fail "go tool pprof -top failed"; }
  echo "$top" | head -12
  grep -qE ' (deflate|longest_match|deflate_slow|libz\.so\.1\+0x[0-9a-f]+)$' <<<"$top" || fail "no zlib function in pprof -top"
  grep -qE ' Java_java_util_zip_Deflater_deflateBytesBytes$' <<<"$top" || fail "no JNI function in pprof -top"
else
  fail "go not found (scripts/setup.sh installs Debian's golang-go)"
fi

[ $failures -eq 0 ] && echo PASS || exit 1
