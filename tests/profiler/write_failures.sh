#!/usr/bin/env bash
# A write that fails loses no sample, and the report says where every sample went
# (docs/profiler/options.md, "When a write fails"). Each section breaks the output while a JVM runs:
#   full_jfr       a full disk (a tmpfs filled up, 4 KiB left) in the middle of a JFR recording
#                  (chunktime=200ms): the next chunk is cut off again, the file asked for keeps
#                  its whole chunks, the rest goes to the fallback file; launch form, exit 0
#   full_html      a full disk from the start: the launch form writes no part of the page at the
#                  path asked for (and no temporary file), the fallback page is whole
#   full_attached  jvmkit dump -o FULL/p.pb.gz and jvmkit stop -o FULL/p.collapsed exit 1, their
#                  fallbacks hold the profiles
#   full_loop      loop=1s with collapsed windows, the disk filled after the first one: the windows
#                  after it go to fallbacks; jvmkit stop exits 1
#   removed_jfr    loop=1s,chunktime=250ms: the folder of the window files moved away (then deleted)
#                  while a window is written; that window's chunks, written to a file nobody can
#                  reach at its path any more, are read back into the fallback
#   removed_pprof  the folder removed before the JVM exits (launch form)
#   immutable_jfr  the JFR file made immutable (chattr +i) mid-run; jvmkit stop exits 1
#   readonly_html  jvmkit profile -d PID while the file's mount is remounted read-only: exits 1
# Root ignores permissions, so "read-only" is what refuses root too: an immutable file (EPERM on
# write) for the JFR file, which is open while the run goes; a read-only remount (EROFS) for a
# whole-file format (a mount with a file open for writing cannot be remounted read-only).
# Sections that need mount(2) or chattr say SKIP when this host does not permit them.
# Every section checks: the path asked for holds whole, readable profiles (jvmkit convert reads
# them to the end) or nothing; each file holding samples is named once in the report with the
# samples it holds (counted by jvmkit convert); the counts add up to the samples the report says
# were delivered (or the windows' samples); the exit status.
# Usage: write_failures.sh JDK_HOME JVMKIT CLI_CLASSES OUTDIR AGENT
set -euo pipefail
jdk=$1 jvmkit=$2 classes=$3 out=$4 agent=$5
java=$jdk/bin/java
main=jvmkit.test.cli.ProfileTarget

# A failure is a line in $out/failures (the sections run in subshells, side by side).
fail() { echo "FAIL: $*"; echo "$*" >>"$out/failures"; }
ok() { echo "ok: $*"; }
check() {  # check TEXT COMMAND...
  local text=$1; shift
  if "$@"; then ok "$text"; else fail "$text"; fi
}
cleanup() {
  (
    set +e
    for f in "$out"/*/p.jfr; do [ -e "$f" ] && chattr -i "$f" 2>/dev/null; done
    if [ -f "$out/jvm.pids" ]; then while read -r p; do kill -9 "$p" 2>/dev/null; done <"$out/jvm.pids"; fi
    for m in "$out"/mnt-*; do mountpoint -q "$m" 2>/dev/null && umount -l "$m"; done
    true
  )
}
trap cleanup EXIT
cleanup  # a run killed earlier may have left its mounts
rm -rf "$out" && mkdir -p "$out"
started() { echo "$1" >>"$out/jvm.pids"; }

# Whether this host lets the test mount a tmpfs, and set the immutable flag (the kernel and the
# file system must support it: ext4, and tmpfs since Linux 6.0).
can_mount() {
  mkdir -p "$out/mnt-probe"
  mount -t tmpfs -o size=64k tmpfs "$out/mnt-probe" 2>/dev/null && umount "$out/mnt-probe"
}
can_chattr() {
  touch "$out/chattr-probe"
  chattr +i "$out/chattr-probe" 2>/dev/null && chattr -i "$out/chattr-probe"
}
# mount_tmpfs DIR SIZE: a tmpfs of SIZE at DIR (mnt-NAME).
mount_tmpfs() { mkdir -p "$1" && mount -t tmpfs -o "size=$2" tmpfs "$1"; }
# fill DIR LEAVE: fills DIR's file system, then frees LEAVE bytes (a multiple of 4 KiB).
fill() {
  dd if=/dev/zero of="$1/fill" bs=4k >/dev/null 2>&1 || true
  [ "$2" -gt 0 ] && truncate -s "-$2" "$1/fill"
  return 0
}

# count FILE: the samples in FILE, a profile read to its end by jvmkit convert (a JFR file: every
# chunk whole); "" when it cannot be read whole. An html page: the samples its data names.
count() {
  if [[ $1 == *.html ]]; then
    local page
    page=$(<"$1")
    [[ $page == *'</html>'* && $page =~ \"info\":\"[^\"]*,\ ([0-9]+)\ samples ]] && echo "${BASH_REMATCH[1]}"
    return 0
  fi
  local said
  said=$("$jvmkit" convert "$1" -o "$out/count.$BASHPID.collapsed" 2>&1) || { echo "convert: $said" >&2; return 0; }
  if [[ $said == *": no samples" ]]; then echo 0; return 0; fi  # a short last window may have none
  sed -n 's/.*(\([0-9]*\) samples) to .*/\1/p' <<<"$said"
}
# said_count LOG FILE FORMAT: the samples the report says FILE holds; "" unless it says so once.
said_count() {
  local lines
  lines=$(grep -F " to $2" "$1" | grep -E "wrote $3 output \([0-9]+ samples\) to $2( |$)" || true)
  [ "$(grep -c . <<<"$lines")" -eq 1 ] && sed 's/.*(\([0-9]*\) samples).*/\1/' <<<"$lines"
  return 0
}
# delivered LOG: the samples with frames the report counts (delivered less empty traces).
delivered() {
  local d e
  d=$(sed -n 's/.*samples requested [0-9]*, delivered \([0-9]*\),.*/\1/p' "$1" | tail -1)
  e=$(sed -n 's/.*empty traces \([0-9]*\).*/\1/p' "$1" | tail -1)
  echo $((${d:-0} - ${e:-0}))
}
# The checks of a file that holds samples: whole (convert reads it to the end), named once in LOG
# with the samples it holds. Prints its count.
file_checks() {  # file_checks NAME LOG FILE FORMAT
  local n said
  n=$(count "$3")
  said=$(said_count "$2" "$3" "$4")
  if [ -n "$n" ] && [ "$n" = "$said" ]; then
    ok "$1: $3 is whole and holds the $n samples the report names once" >&2
  else
    fail "$1: $3: holds ${n:-no readable profile}, the report says ${said:-nothing (or more than once)}" >&2
  fi
  echo "${n:-0}"
}
fallbacks() { ls "$1"/jvmkit-*."$2" 2>/dev/null || true; }  # fallbacks DIR EXT
# A JFR recording split between the asked FILE and the FALLBACK: each whole, named in LOG with its
# samples, and together the samples LOG says were delivered.
split_adds_up() {  # split_adds_up NAME LOG FILE FALLBACK
  local a b total
  a=$(file_checks "$1" "$2" "$3" jfr)
  b=$(file_checks "$1" "$2" "$4" jfr)
  total=$(delivered "$2")
  check "$1: $a + $b samples in the files = $total delivered" test $((a + b)) -eq "$total"
}
# wait_for CONDITION...: at most 60 s.
wait_for() {
  for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done
  return 1
}
chunks_in() { LC_ALL=C grep -aoP 'FLR\x00' "$1" 2>/dev/null | wc -l; }
has_chunks() { [ "$(chunks_in "$1")" -ge "$2" ]; }
has_fallback() { [ -n "$(fallbacks "$1" "$2")" ]; }
fallback_chunks() { local f; f=$(fallbacks "$1" jfr | head -1); [ -n "$f" ] && has_chunks "$f" "$2"; }
last_line_names() {  # last_line_names LOG TEXT: the report's last line has TEXT
  local last
  last=$(grep '^jvmkit profiler: ' "$1" | tail -1)
  [[ $last == *"$2"* ]]
}
ready() { grep -q '^ready' "$1" 2>/dev/null; }

# launch NAME ARGS...: jvmkit profile ARGS -- java (tmpdir $out/NAME/jtmp) ProfileTarget until
# $out/NAME/end exists (at most 60 s), in the background: sets $pid, the log is $out/NAME/log.
launch() {
  local name=$1; shift
  "$jvmkit" profile "$@" -- "$java" "-Djava.io.tmpdir=$out/$name/jtmp" -cp "$classes" $main 60 \
    "stop=$out/$name/end" >"$out/$name/log" 2>&1 &
  pid=$!
  started "$pid"
}
# agent_jvm NAME [OPTIONS]: java [-agentpath:AGENT=OPTIONS] ProfileTarget, as launch.
agent_jvm() {
  local with=()
  [ -n "${2:-}" ] && with=("-agentpath:$agent=$2")
  "$java" "${with[@]}" "-Djava.io.tmpdir=$out/$1/jtmp" -cp "$classes" $main 60 "stop=$out/$1/end" \
    >"$out/$1/log" 2>&1 &
  pid=$!
  started "$pid"
}
end_jvm() {  # end_jvm NAME PID: lets the JVM exit; $rc: its exit status
  touch "$out/$1/end"
  rc=0
  wait "$2" || rc=$?
}
section_dir() { mkdir -p "$out/$1/jtmp"; }

# --- JFR, the disk full after two chunks ---
section_full_jfr() {
  local s=full_jfr dir=$out/mnt-full_jfr
  section_dir $s
  mount_tmpfs "$dir" 1m
  launch $s -e cpu -i 1ms --chunktime 200ms -o "$dir/p.jfr"
  wait_for has_chunks "$dir/p.jfr" 2 || fail "$s: no two chunks written"
  fill "$dir" 4096  # the next chunk is larger than 4 KiB: a part of it is written, then cut off
  wait_for fallback_chunks "$out/$s/jtmp" 2 || fail "$s: no fallback file with chunks"
  end_jvm $s "$pid"
  check "$s: the launch form keeps the JVM's exit status 0 (is $rc)" test "$rc" -eq 0
  check "$s: the report says the file could not be written" grep -q "ERROR: cannot write $dir/p.jfr: No space left" "$out/$s/log"
  "$jdk/bin/jfr" summary "$dir/p.jfr" >"$out/$s/summary" 2>&1 || fail "$s: jfr summary cannot read $dir/p.jfr"
  local fb
  fb=$(fallbacks "$out/$s/jtmp" jfr)
  split_adds_up $s "$out/$s/log" "$dir/p.jfr" "$fb"
  check "$s: the report's last line names the fallback" last_line_names "$out/$s/log" "$fb"
}

# --- html, the disk full from the start ---
section_full_html() {
  local s=full_html dir=$out/mnt-full_html
  section_dir $s
  mount_tmpfs "$dir" 24k
  fill "$dir" 0
  launch $s -e cpu -i 1ms -o "$dir/p.html"
  wait_for ready "$out/$s/log" && sleep 1
  end_jvm $s "$pid"
  check "$s: exit status 0 (is $rc)" test "$rc" -eq 0
  check "$s: nothing at the path asked for, no temporary file" test "$(ls -A "$dir")" = fill
  local fb n
  fb=$(fallbacks "$out/$s/jtmp" html)
  n=$(file_checks $s "$out/$s/log" "$fb" html)
  check "$s: the page's $n samples = $(delivered "$out/$s/log") delivered" test "$n" -eq "$(delivered "$out/$s/log")"
  check "$s: the report's last line names the fallback" last_line_names "$out/$s/log" "$fb"
}

# --- dump -o and stop -o of an attached tool: pprof and collapsed ---
section_full_attached() {
  local s=full_attached dir=$out/mnt-full_attached
  section_dir $s
  mount_tmpfs "$dir" 24k
  fill "$dir" 0
  agent_jvm $s "interval=1ms"
  local jvm=$pid rc=0 fb n
  wait_for ready "$out/$s/log" || fail "$s: the JVM did not start"
  sleep 0.5
  "$jvmkit" dump -o "$dir/p.pb.gz" "$jvm" >"$out/$s/dump.out" 2>&1 || rc=$?
  check "$s: jvmkit dump exits 1 when the file asked for was not written (is $rc)" test "$rc" -eq 1
  fb=$(fallbacks "$out/$s/jtmp" pb.gz)
  file_checks "$s dump" "$out/$s/dump.out" "$fb" pprof >/dev/null
  rc=0
  "$jvmkit" stop -o "$dir/p.collapsed" "$jvm" >"$out/$s/stop.out" 2>&1 || rc=$?
  check "$s: jvmkit stop exits 1 (is $rc)" test "$rc" -eq 1
  fb=$(fallbacks "$out/$s/jtmp" collapsed)
  n=$(file_checks "$s stop" "$out/$s/stop.out" "$fb" collapsed)
  check "$s: the stop's $n samples = $(delivered "$out/$s/stop.out") delivered" test "$n" -eq "$(delivered "$out/$s/stop.out")"
  check "$s: nothing at the paths asked for, no temporary file" test "$(ls -A "$dir")" = fill
  end_jvm $s "$jvm"
}

# --- loop=: collapsed windows, the disk full after the first ---
section_full_loop() {
  local s=full_loop dir=$out/mnt-full_loop
  section_dir $s
  mount_tmpfs "$dir" 1m
  agent_jvm $s "interval=1ms,loop=1s,file=$dir/w-%t.collapsed"
  local jvm=$pid rc=0
  wait_for bash -c "ls '$dir'/w-*.collapsed >/dev/null 2>&1" || fail "$s: no first window"
  fill "$dir" 0
  wait_for has_fallback "$out/$s/jtmp" collapsed || fail "$s: no window in a fallback file"
  "$jvmkit" stop "$jvm" >"$out/$s/stop.out" 2>&1 || rc=$?
  check "$s: jvmkit stop exits 1: windows went to fallbacks (is $rc)" test "$rc" -eq 1
  check "$s: stop says so" grep -q "could not be written to $dir/w-%t.collapsed" "$out/$s/stop.out"
  local total=0 n f
  for f in "$dir"/w-*.collapsed $(fallbacks "$out/$s/jtmp" collapsed); do
    n=$(count "$f")
    [ -n "$n" ] || fail "$s: $f is not a whole profile"
    total=$((total + ${n:-0}))
  done
  local windows
  windows=$(sed -n 's/.*continuous: [0-9]* windows, \([0-9]*\) samples in them.*/\1/p' "$out/$s/stop.out")
  check "$s: the window files hold $total samples = the windows' ${windows:-?}" test "$total" -eq "${windows:--1}"
  end_jvm $s "$jvm"
}

# --- loop= with JFR windows, their folder removed while a window is written ---
section_removed_jfr() {
  local s=removed_jfr dir=$out/removed_jfr/gone
  section_dir $s
  mkdir -p "$dir"
  agent_jvm $s "interval=1ms,loop=1s,chunktime=250ms,file=$dir/w-%t.jfr"
  local jvm=$pid newest f
  wait_for bash -c "[ \$(ls '$dir'/w-*.jfr 2>/dev/null | wc -l) -ge 2 ]" || fail "$s: no second window"
  newest=$(ls "$dir"/w-*.jfr | tail -1)
  wait_for has_chunks "$newest" 1 || fail "$s: no chunk in the second window"
  # The folder leaves its path at once (a rename: no window begins or ends half in it), and is
  # deleted once the JVM has ended; the window files it holds then are the JVM's (whole, or the one
  # being written, whose chunks the JVM read back into a fallback).
  mv "$dir" "$dir.removed"
  wait_for bash -c "[ \$(ls '$out/$s/jtmp'/jvmkit-*.jfr 2>/dev/null | wc -l) -ge 2 ]" || fail "$s: no two fallbacks"
  end_jvm $s "$jvm"
  check "$s: exit status 0 (is $rc)" test "$rc" -eq 0
  local removed
  removed=$(sed -n 's/.*ERROR: cannot write \(.*\): the file was removed or replaced while the run wrote it$/\1/p' \
    "$out/$s/log")
  # A window's file is open from its first chunk to its last: a host so busy that the rename came
  # between two windows removed none being written (the sums below hold all the same).
  if [ -z "$removed" ]; then
    echo "note: $s: the folder left between two windows, none was being written (a busy host)"
  else
    check "$s: the report says that the window being written was removed ($removed)" \
      test -e "$dir.removed/$(basename "$removed")"
  fi
  local total=0 n
  for f in "$dir.removed"/w-*.jfr; do
    [ "$(basename "$f")" = "$(basename "${removed:-none}")" ] && continue  # read back into a fallback
    n=$(count "$f")
    [ -n "$n" ] || fail "$s: $f is not a whole recording"
    total=$((total + ${n:-0}))
  done
  rm -rf "$dir.removed"
  for f in $(fallbacks "$out/$s/jtmp" jfr); do
    n=$(file_checks $s "$out/$s/log" "$f" jfr)
    total=$((total + n))
  done
  local windows
  windows=$(sed -n 's/.*continuous: [0-9]* windows, \([0-9]*\) samples in them.*/\1/p' "$out/$s/log")
  check "$s: the windows written before and the fallbacks hold $total samples = the windows' ${windows:-?}" \
    test "$total" -eq "${windows:--1}"
}

# --- pprof, the folder removed before the JVM exits ---
section_removed_pprof() {
  local s=removed_pprof dir=$out/removed_pprof/gone
  section_dir $s
  mkdir -p "$dir"
  launch $s -e cpu -i 1ms -o "$dir/p.pb.gz"
  wait_for ready "$out/$s/log" && sleep 1
  rm -rf "$dir"
  end_jvm $s "$pid"
  check "$s: exit status 0 (is $rc)" test "$rc" -eq 0
  local fb n
  fb=$(fallbacks "$out/$s/jtmp" pb.gz)
  n=$(file_checks $s "$out/$s/log" "$fb" pprof)
  check "$s: the fallback's $n samples = $(delivered "$out/$s/log") delivered" test "$n" -eq "$(delivered "$out/$s/log")"
  check "$s: the report's last line names the fallback" last_line_names "$out/$s/log" "$fb"
}

# --- JFR, the file made immutable mid-run (root too gets EPERM) ---
section_immutable_jfr() {
  local s=immutable_jfr dir=$out/immutable_jfr
  section_dir $s
  agent_jvm $s "interval=1ms,chunktime=200ms,file=$dir/p.jfr"
  local jvm=$pid rc=0
  wait_for has_chunks "$dir/p.jfr" 2 || fail "$s: no two chunks written"
  chattr +i "$dir/p.jfr"
  wait_for fallback_chunks "$out/$s/jtmp" 1 || fail "$s: no fallback file with chunks"
  "$jvmkit" stop "$jvm" >"$out/$s/stop.out" 2>&1 || rc=$?
  chattr -i "$dir/p.jfr"
  check "$s: jvmkit stop exits 1 (is $rc)" test "$rc" -eq 1
  check "$s: says why" grep -q "ERROR: cannot write $dir/p.jfr: Operation not permitted" "$out/$s/stop.out"
  split_adds_up $s "$out/$s/stop.out" "$dir/p.jfr" "$(fallbacks "$out/$s/jtmp" jfr)"
  end_jvm $s "$jvm"
}

# --- html of jvmkit profile -d PID, its mount remounted read-only meanwhile ---
section_readonly_html() {
  local s=readonly_html dir=$out/mnt-readonly_html
  section_dir $s
  mount_tmpfs "$dir" 1m
  agent_jvm $s
  local jvm=$pid rc=0
  wait_for ready "$out/$s/log" || fail "$s: the JVM did not start"
  "$jvmkit" profile -d 2 -i 1ms -o "$dir/p.html" "$jvm" >"$out/$s/profile.out" 2>&1 &
  local tool=$!
  wait_for grep -q "profiling pid" "$out/$s/profile.out" || fail "$s: the profile did not start"
  mount -o remount,ro "$dir"
  wait "$tool" || rc=$?
  check "$s: jvmkit profile exits 1 (is $rc)" test "$rc" -eq 1
  check "$s: says why" grep -q "ERROR: cannot write $dir/p.html: Read-only file system" "$out/$s/profile.out"
  check "$s: nothing at the path asked for" test -z "$(ls -A "$dir")"
  local fb n
  fb=$(fallbacks "$out/$s/jtmp" html)
  n=$(file_checks $s "$out/$s/profile.out" "$fb" html)
  check "$s: the page's $n samples = $(delivered "$out/$s/profile.out") delivered" \
    test "$n" -eq "$(delivered "$out/$s/profile.out")"
  end_jvm $s "$jvm"
}

sections=(removed_jfr removed_pprof)
if can_mount; then
  sections+=(full_jfr full_html full_attached full_loop readonly_html)
else
  echo "SKIP full_jfr full_html full_attached full_loop readonly_html: mounting a tmpfs is not permitted here"
fi
if can_chattr; then
  sections+=(immutable_jfr)
else
  echo "SKIP immutable_jfr: chattr +i is not permitted or not supported on $out's file system"
fi
# Each section in a subshell that stops at an unexpected error (set -e): one that did not get to its
# end failed.
for s in "${sections[@]}"; do ("section_$s" >"$out/$s.out" 2>&1; touch "$out/$s.done") & done
wait
for s in "${sections[@]}"; do
  echo "== $s"
  cat "$out/$s.out"
  [ -e "$out/$s.done" ] || fail "$s: the section stopped at an unexpected error (its last command above)"
done
[ -s "$out/failures" ] && exit 1
echo PASS
