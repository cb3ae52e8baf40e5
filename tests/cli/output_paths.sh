#!/usr/bin/env bash
# Nothing the user asked for is lost to a late error:
#   output_paths.sh TOOL JAVA CLASSES WORK AGENT   (CLASSES: java/tests/cli's, ProfileTarget)
#   - an output that cannot be written is refused before the program runs (its "ready" line never
#     comes): file= of -agentpath (a missing folder, a file where a folder should be, the folder of a
#     file name pattern, one event's file of a collapsed profile of several events), -o of
#     `jvmkit profile -- java` (the tool refuses it and never starts java), of start, of profile PID
#     and of stop (refused, the run goes on);
#   - a profile whose folder was removed while the JVM ran goes to a fallback file in the JVM's
#     java.io.tmpdir, jvmkit-<pid>-<yyyymmdd-hhmmss>.<ext>, named in the report (at the JVM's exit,
#     through the tool's launch mode, and in the answer to jvmkit stop);
#   - stop and dump without -o write the file given at start (start -o, or file= of -agentpath);
#     start without -o makes it profile.html in the tool's working directory.
set -u
tool=$1 java=$2 classes=$3 agent=$5
target=(jvmkit.test.cli.ProfileTarget 180)
# shellcheck source=../support/attach_targets.sh
source "$(dirname "$0")/../support/attach_targets.sh"
hot=jvmkit.test.cli.ProfileTarget.spin
main=jvmkit.test.cli.ProfileTarget
missing=/nonexistent/jvmkit-output-paths
said() { grep -qF -- "$2" "$work/$1.log"; }     # said NAME TEXT: the output NAME.log has TEXT
hot_in() { grep -q "$hot" "$1" 2>/dev/null; }   # hot_in FILE: the profile names the hot method
main_ran() { grep -q '^ready' "$work/$1.log"; } # the program's main printed its line
# refused NAME MESSAGE COMMAND...: COMMAND exits non-zero with MESSAGE, before the program's main.
refused() {
  local name=$1 message=$2; shift 2
  "$@" >"$work/$name.log" 2>&1
  local rc=$?
  check "$name: refused (exit $rc)" test "$rc" -ne 0
  check "$name: says '$message'" said "$name" "$message"
  check "$name: the program did not run" bash -c "! grep -q '^ready' '$work/$name.log'"
  said "$name" "$message" || sed 's/^/    /' "$work/$name.log"
}

echo "== -agentpath: file= checked at the JVM's start"
refused agent_missing "jvmkit profiler: file=$missing/p.html: directory $missing does not exist" \
  "$java" "-agentpath:$agent=file=$missing/p.html" -cp "$classes" $main 1
echo x >"$work/plain"
refused agent_not_dir "jvmkit profiler: file=$work/plain/p.html: $work/plain is not a directory" \
  "$java" "-agentpath:$agent=file=$work/plain/p.html" -cp "$classes" $main 1
refused agent_pattern "jvmkit profiler: file=$missing/%p-%t.html: directory $missing does not exist" \
  "$java" "-agentpath:$agent=loop=1s,file=$missing/%p-%t.html" -cp "$classes" $main 1
mkdir "$work/m.alloc.collapsed"
refused agent_event_file "file=$work/m.collapsed: $work/m.alloc.collapsed is a directory" \
  "$java" "-agentpath:$agent=event=cpu,alloc,file=$work/m.collapsed" -cp "$classes" $main 1
check "no file left by the refused runs" bash -c "! ls '$work' | grep -qE '^(p\.html|m\.cpu\.collapsed)$'"

echo "== jvmkit profile -- java: -o checked before java is started"
refused launch_missing "jvmkit: -o $missing/p.html: directory $missing does not exist" \
  "$tool" profile -o "$missing/p.html" -- "$java" -cp "$classes" $main 1
check "launch: the tool refused it, not the agent in a JVM" bash -c "! grep -q 'jvmkit profiler' '$work/launch_missing.log'"
mkdir "$work/l.cpu.collapsed"
refused launch_event_file "jvmkit: -o $work/l.collapsed: $work/l.cpu.collapsed is a directory" \
  "$tool" profile -e cpu,alloc -o "$work/l.collapsed" -- "$java" -cp "$classes" $main 1

echo "== a folder removed while the JVM runs: the fallback in java.io.tmpdir"
mkdir -p "$work/gone" "$work/jtmp"
"$java" "-agentpath:$agent=interval=1ms,file=$work/gone/p.collapsed" "-Djava.io.tmpdir=$work/jtmp" \
  -cp "$classes" $main 2 "remove=$work/gone" >"$work/fallback.log" 2>&1
rc=$?
check "fallback: the JVM ran and exited normally (exit $rc)" test "$rc" -eq 0
check "fallback: the report says the file could not be written" said fallback "ERROR: cannot write $work/gone/p.collapsed"
fallback=$(grep -oE "to $work/jtmp/jvmkit-[0-9]+-[0-9]{8}-[0-9]{6}\.collapsed instead" "$work/fallback.log" | awk '{print $2}')
check "fallback: the report names jvmkit-<pid>-<time>.collapsed in java.io.tmpdir ($fallback)" test -n "$fallback"
check "fallback: the file holds the profile" hot_in "$fallback"
[ -n "$fallback" ] || sed 's/^/    /' "$work/fallback.log"
mkdir -p "$work/gone2" "$work/jtmp2"
"$tool" profile -o "$work/gone2/p.html" -- "$java" "-Djava.io.tmpdir=$work/jtmp2" -cp "$classes" $main 2 \
  "remove=$work/gone2" >"$work/launch_fallback.log" 2>&1
check "launch mode: the fallback is named" \
  bash -c "grep -qE 'to $work/jtmp2/jvmkit-[0-9]+-[0-9]{8}-[0-9]{6}\.html instead' '$work/launch_fallback.log'"
check "launch mode: the fallback page is there" bash -c "grep -qi '<html' '$work'/jtmp2/jvmkit-*.html"

echo "== attach: start, profile and stop refuse what cannot be written"
mkdir -p "$work/cwd" "$work/jtmp3"
start_jvm "$work/target.out" "$java" "-Djava.io.tmpdir=$work/jtmp3" || exit 1
jvm=$pid
run() {  # run NAME STATUS ARGS...: the tool, from $work/cwd, exits with STATUS
  local name=$1 want=$2; shift 2
  (cd "$work/cwd" && "$tool" "$@") >"$work/$name.log" 2>&1
  local rc=$?
  check "$name: jvmkit $* exits with $want" test "$rc" -eq "$want"
  [ "$rc" -eq "$want" ] || { echo "    (exit status $rc)"; sed 's/^/    /' "$work/$name.log"; }
}
not_running() { "$tool" status "$jvm" 2>&1 | grep -q 'not running'; }
run start_missing 1 start -o "$missing/a.html" "$jvm"
check "start: the agent's answer names file= and why" \
  said start_missing "cannot start: file=$missing/a.html: directory $missing does not exist"
check "start refused: not running" not_running
run profile_missing 1 profile -d 1 -o "$missing/b.html" "$jvm"
check "profile PID: -o refused by the tool" said profile_missing "jvmkit: -o $missing/b.html: directory $missing does not exist"
check "profile refused: not running" not_running
run stop_start 0 start "$jvm"
run stop_missing 1 stop -o "$missing/c.html" "$jvm"
check "stop -o into a missing folder: refused" said stop_missing "jvmkit: -o $missing/c.html: directory $missing does not exist"
check "stop refused: still running" bash -c "! '$tool' status $jvm 2>&1 | grep -q 'not running'"
run stop_default 0 stop "$jvm"
check "start and stop without -o: profile.html in the tool's working directory" grep -qi "<html" "$work/cwd/profile.html"

echo "== attach: stop and dump without -o write the file given at start"
run start_file 0 start -o "$work/s.collapsed" "$jvm"
check "start says where stop and dump write" said start_file "writes the profile to $work/s.collapsed"
run status_file 0 status "$jvm"
check "status names the output" said status_file "output: $work/s.collapsed"
sleep 2
run dump_default 0 dump "$jvm"
check "dump without -o: start's file" hot_in "$work/s.collapsed"
check "dump without -o: says so" said dump_default "to $work/s.collapsed"
rm -f "$work/s.collapsed" "$work/cwd/profile.html"
run stop_file 0 stop "$jvm"
check "stop without -o: start's file" hot_in "$work/s.collapsed"
check "stop without -o: says so" said stop_file "to $work/s.collapsed"
check "stop without -o: no profile.html in the tool's working directory" test ! -e "$work/cwd/profile.html"

echo "== attach: the folder of start's file removed: the fallback, named in stop's answer"
mkdir "$work/gone3"
run start_gone 0 start -o "$work/gone3/x.collapsed" "$jvm"
sleep 1
rmdir "$work/gone3"
run stop_gone 1 stop "$jvm"
check "stop: could not write, says so" said stop_gone "ERROR: cannot write $work/gone3/x.collapsed"
attach_fallback=$(grep -oE "to $work/jtmp3/jvmkit-[0-9]+-[0-9]{8}-[0-9]{6}\.collapsed instead" "$work/stop_gone.log" | awk '{print $2}')
check "stop: the fallback in the JVM's java.io.tmpdir is named ($attach_fallback)" test -n "$attach_fallback"
check "stop: the fallback holds the profile" hot_in "$attach_fallback"

echo "== -agentpath file=, then jvmkit stop without -o"
start_jvm "$work/onload.out" "$java" "-agentpath:$agent=interval=1ms,file=$work/onload.collapsed" || exit 1
sleep 1
run onload_stop 0 stop "$pid"
check "stop without -o: the file of -agentpath" hot_in "$work/onload.collapsed"

if [ "$failures" -gt 0 ]; then echo "output paths test: $failures FAILED"; exit 1; fi
echo "output paths test: PASS"
