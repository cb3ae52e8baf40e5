#!/usr/bin/env bash
# The jvmkit tool against running JVMs, through the attach mechanism:
#   attach_profile.sh TOOL JAVA CLASSES WORK AGENT OTHER_VERSION_AGENT
#   (CLASSES: java/tests/cli's, jvmkit.test.cli.ProfileTarget; OTHER_VERSION_AGENT: a stand-in
#   for an agent of another version)
#   - profile -d: a profile that names the hot method, at the path asked for, and where it is said;
#     several events (-e cpu,alloc): a file per event, each one said (an earlier file is not);
#     the default output (profile.html in the tool's working directory); Ctrl-C ends the wait early
#     and the profile is still written; a JVM that exits during the wait writes it at its exit;
#   - status while not running and while running; start, dump, stop, start again, stop: a new
#     profile each time;
#   - misuse: usage errors (status 2), no such process, not a JVM (left running), already running,
#     not running, a JVM with -XX:+DisableAttachMechanism, another user's JVM without the right to
#     attach (status 1 and the reason);
#   - a JVM of another user (root attaching to uid 65534) and one in its own mount and PID
#     namespaces with its own /tmp: profiled, and the file is ours, at the path we asked for;
#   - continuous mode: --loop 1s -d 3 writes about three window files named by %t; --loop without -d
#     returns at once and jvmkit stop ends it;
#   - a JVM whose agent was loaded at its start (-agentpath: the same library, or a copy of it at
#     another path, to which the attached copy passes the commands): status, stop, start again;
#     an agent of another version: refused with both versions named.
# Each JVM is a target of its own, so the checks run in four lanes side by side (one JVM at a time
# each: they spin on a CPU), each lane's output in $work/lane-NAME.log, shown in order at the end,
# and a JVM ends as soon as its checks are done. What is checked does not depend on the timing:
# profiles are judged by what they name, and the waits are for the tool's output or a dump's
# samples, so that lanes that share the CPUs only stretch them.
set -u
tool=$1 java=$2 classes=$3 agent=$5 other_version_agent=$6
target=(jvmkit.test.cli.ProfileTarget 180)
# shellcheck source=../support/attach_targets.sh
source "$(dirname "$0")/../support/attach_targets.sh"
hot=jvmkit.test.cli.ProfileTarget.spin
version=$("$tool" --version | awk '{print $2}')
# run NAME STATUS ARGS...: runs the tool with ARGS (its output in $work/NAME.log) and checks that it
# exits with STATUS; shows the output when it does not.
run() {
  local name=$1 want=$2; shift 2
  "$tool" "$@" >"$work/$name.log" 2>&1
  local rc=$?
  check "$name: jvmkit $* exits with $want" test "$rc" -eq "$want"
  [ "$rc" -eq "$want" ] || { echo "    (exit status $rc)"; sed 's/^/    /' "$work/$name.log"; }
}
said() { grep -q -- "$2" "$work/$1.log"; }       # said NAME TEXT: the tool's output has TEXT
hot_in() { grep -q "$hot" "$1" 2>/dev/null; }   # hot_in FILE: the profile names the hot method
samples() { awk '{n += $NF} END {print n + 0}' "$1" 2>/dev/null; }  # of a collapsed profile
# Waiting for events, not for a time (a busy host gives the target less CPU time, so fewer samples
# a second), each at most 120 s:
# wait_said FILE TEXT: until the tool's output FILE has TEXT (it is profiling).
wait_said() {
  for _ in $(seq 1200); do grep -q -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "    (waited 120 s for '$2' in $1)"; return 1
}
# wait_samples PID MIN: until a dump of the running profile has MIN samples and names the hot method.
wait_samples() {
  local dumped=$work/wait-$1.collapsed
  for _ in $(seq 240); do
    "$tool" dump -o "$dumped" "$1" >/dev/null 2>&1
    hot_in "$dumped" && [ "$(samples "$dumped")" -ge "$2" ] && return 0
    sleep 0.5
  done
  echo "    (waited 120 s for $2 samples of $1)"; return 1
}
# end PID: ends a process whose checks are done (a JVM spins on a CPU till then) and takes it off
# the list of those killed at exit.
end() {
  kill -9 "$1" 2>/dev/null
  wait "$1" 2>/dev/null
  local p keep=()
  for p in "${pids[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
  pids=("${keep[@]}")
}
# lane NAME FUNCTION: runs FUNCTION in the background, its output in $work/lane-NAME.log and its
# count of failures in $work/lane-NAME.failures (none there: the lane did not get to its end).
lanes=()
lane() {
  (
    trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done' EXIT  # a lane's own JVMs
    "$2"
    echo "$failures" >"$work/lane-$1.failures"
  ) >"$work/lane-$1.log" 2>&1 &
  lanes+=("$1")
}

# --- Lane 1: usage errors, and a JVM started without the agent, profiled and then started,
# dumped and stopped by turns ---
lane_plain() {
  echo "== usage errors"
  run usage_no_pid 2 status
  check "names the missing pid" said usage_no_pid "status: missing pid"
  run usage_option 2 profile --frobnicate 1
  check "names the unknown option" said usage_option "unknown option '--frobnicate'"
  run usage_duration 2 profile -d 3x 1
  check "names the bad duration" said usage_duration "\-d 3x: bad duration"

  echo "== profile a JVM started without the agent"
  start_jvm "$work/plain.out" "$java" || exit 1
  plain=$pid
  run status_idle 0 status "$plain"
  check "status: not running" said status_idle "not running"
  # A second of a JVM that spins names its hot method: about 100 samples (10 ms) on an idle host,
  # more than 10 next to stress-ng --cpu 2 and this test on the other JDK (the lanes' JVMs spin too).
  run profile 0 profile -d 1 -o "$work/p.collapsed" "$plain"
  check "profile -d 1: the profile names $hot" hot_in "$work/p.collapsed"
  check "profile: says where the profile is" said profile "written to $work/p.collapsed"
  touch -d '1 hour ago' "$work/multi.collapsed"  # an earlier run's, not to be named as this one's
  run multi 0 profile -d 1 -e cpu,alloc -o "$work/multi.collapsed" "$plain"
  for e in cpu alloc; do
    check "profile -e cpu,alloc: $e in multi.$e.collapsed, and said" \
      bash -c "test -f '$work/multi.$e.collapsed' && grep -q 'written to $work/multi.$e.collapsed' '$work/multi.log'"
  done
  check "profile -e cpu,alloc: the earlier multi.collapsed is not named" bash -c "! grep -q 'multi.collapsed' '$work/multi.log'"

  echo "== start, status, dump, stop, start again, stop"
  # The first run samples every 1 ms, the second every 10 ms (the default): the first one's 600
  # samples take 0.6 s of the JVM's CPU time, the second one would need 6 s for as many.
  run start1 0 start -i 1ms "$plain"
  run status_running 0 status "$plain"
  check "status: running" bash -c "grep -q 'running' '$work/status_running.log' && ! grep -q 'not running' '$work/status_running.log'"
  run start_twice 1 start "$plain"
  check "start twice: already running" said start_twice "already running"
  wait_samples "$plain" 600  # a profile larger than the next one's
  run dump 0 dump -o "$work/dump.collapsed" "$plain"
  check "dump: the profile so far" hot_in "$work/dump.collapsed"
  run stop1 0 stop -o "$work/stop1.collapsed" "$plain"
  check "stop: the profile" hot_in "$work/stop1.collapsed"
  check "stop: says where the profile is" said stop1 "written to $work/stop1.collapsed"
  run stop_twice 1 stop -o "$work/stop_twice.collapsed" "$plain"
  check "stop twice: not running" said stop_twice "not running"
  check "stop twice: no file" test ! -e "$work/stop_twice.collapsed"
  run dump_idle 1 dump -o "$work/dump_idle.collapsed" "$plain"
  check "dump while not running: not running" said dump_idle "not running"
  run start2 0 start "$plain"
  wait_samples "$plain" 1
  run stop2 0 stop -o "$work/stop2.collapsed" "$plain"
  check "start again: a new profile ($(samples "$work/stop2.collapsed") samples after $(samples "$work/stop1.collapsed") samples)" \
    test "$(samples "$work/stop2.collapsed")" -gt 0 -a "$(samples "$work/stop2.collapsed")" -lt "$(samples "$work/stop1.collapsed")"

  if can_start_other_user; then
    echo "== not permitted: the tool as uid 65534, the JVM root's"
    # A copy of the tool and of the agent it looks for next to itself, in $work: uid 65534 may not
    # be able to enter the build tree.
    copy_for_other_user "$agent" >/dev/null
    setpriv --reuid=65534 --regid=65534 --clear-groups "$(copy_for_other_user "$tool")" status "$plain" \
      >"$work/not_permitted.log" 2>&1
    rc=$?
    check "not permitted: exit 1 (status $rc)" test "$rc" -eq 1
    check "not permitted: says so" said not_permitted "not permitted"
  fi
  end "$plain"
}

# --- Lane 2: Ctrl-C, the default output, and continuous mode ---
lane_loop() {
  echo "== Ctrl-C, the default output, and continuous mode"
  start_jvm "$work/looped.out" "$java" || exit 1
  looped=$pid
  "$tool" profile -d 60 -o "$work/int.collapsed" "$looped" >"$work/int.log" 2>&1 &
  tool_pid=$!
  wait_said "$work/int.log" "profiling pid $looped" && wait_samples "$looped" 1
  start_s=$(date +%s)
  kill -INT "$tool_pid"
  wait "$tool_pid"
  rc=$?
  check "Ctrl-C: profile ends early (status $rc, $(($(date +%s) - start_s)) s)" test "$rc" -eq 0 -a $(($(date +%s) - start_s)) -lt 30
  check "Ctrl-C: the profile is still written" hot_in "$work/int.collapsed"
  (cd "$work" && "$tool" profile -d 1 "$looped") >"$work/default.log" 2>&1
  check "profile without -o: profile.html in the working directory" grep -qi "<html" "$work/profile.html"

  run loop 0 profile --loop 1s -d 3 -o "$work/win-%t.collapsed" "$looped"
  windows=$(find "$work" -maxdepth 1 -name 'win-*.collapsed' | wc -l)
  check "--loop 1s -d 3: about three window files ($windows)" test "$windows" -ge 2 -a "$windows" -le 5
  check "window files named by %t (yyyymmdd-hhmmss)" \
    bash -c "ls '$work' | grep '^win-' | grep -qE '^win-[0-9]{8}-[0-9]{6}\.collapsed$'"
  check "the windows name $hot" bash -c "grep -l '$hot' '$work'/win-*.collapsed | grep -q ."
  start_s=$(date +%s)
  run loop_background 0 profile --loop 1s -o "$work/bg-%t.collapsed" "$looped"
  check "--loop without -d returns at once" test $(($(date +%s) - start_s)) -lt 10
  run loop_status 0 status "$looped"
  check "status: running in continuous mode" bash -c "! grep -q 'not running' '$work/loop_status.log'"
  for _ in $(seq 1200); do ls "$work" | grep -q '^bg-[0-9]' && break; sleep 0.1; done  # a window written
  run loop_stop 0 stop -o "$work/bg-last.collapsed" "$looped"
  check "jvmkit stop ends continuous mode" bash -c "'$tool' status $looped | grep -q 'not running'"
  check "continuous mode wrote window files" bash -c "ls '$work' | grep -q '^bg-[0-9]'"
  end "$looped"
}

# --- Lane 3: a JVM that exits while profiled, JVMs with an agent loaded at their start, misuse ---
lane_onload() {
  echo "== a JVM that exits while it is profiled"
  target=(jvmkit.test.cli.ProfileTarget 180 "stop=$work/short.stop")
  start_jvm "$work/short.out" "$java" || exit 1
  target=(jvmkit.test.cli.ProfileTarget 180)
  # It exits (its stop file) once it is profiled and its profile has samples.
  ("$tool" profile -d 60 -o "$work/short.collapsed" "$pid" >"$work/jvm_exits.log" 2>&1; echo $? >"$work/jvm_exits.rc") &
  tool_pid=$!
  wait_said "$work/jvm_exits.log" "profiling pid $pid" && wait_samples "$pid" 1
  touch "$work/short.stop"
  wait "$tool_pid"
  check "the JVM exits while profiled: jvmkit profile exits with 0" test "$(cat "$work/jvm_exits.rc")" -eq 0
  check "the JVM exits while profiled: the tool says so" said jvm_exits "exited while it was being profiled"
  check "the JVM exits while profiled: its agent wrote the profile at exit" hot_in "$work/short.collapsed"
  end "$pid"

  echo "== the agent loaded at JVM start"
  start_jvm "$work/onload.out" "$java" "-agentpath:$agent=interval=1ms,file=$work/onload-exit.collapsed" || exit 1
  run onload_status 0 status "$pid"
  check "-agentpath: status says running" bash -c "grep -q 'running' '$work/onload_status.log' && ! grep -q 'not running' '$work/onload_status.log'"
  run onload_stop 0 stop -o "$work/onload-stop.collapsed" "$pid"
  check "-agentpath: stop writes its profile" hot_in "$work/onload-stop.collapsed"
  run onload_start 0 start "$pid"
  wait_samples "$pid" 1
  run onload_stop2 0 stop -o "$work/onload-stop2.collapsed" "$pid"
  check "-agentpath: start again, stop" hot_in "$work/onload-stop2.collapsed"
  end "$pid"
  mkdir -p "$work/copy" && cp "$agent" "$work/copy/libjvmkit_prof.so"
  start_jvm "$work/copy.out" "$java" "-agentpath:$work/copy/libjvmkit_prof.so=interval=1ms,file=$work/copy-exit.collapsed" || exit 1
  run copy_status 0 status "$pid"
  check "a copy at another path: the command reaches it" bash -c "grep -q 'running' '$work/copy_status.log' && ! grep -q 'not running' '$work/copy_status.log'"
  run copy_stop 0 stop -o "$work/copy-stop.collapsed" "$pid"
  check "a copy at another path: stop writes its profile" hot_in "$work/copy-stop.collapsed"
  end "$pid"
  start_jvm "$work/other.out" "$java" "-agentpath:$other_version_agent" || exit 1
  run other_version 1 start "$pid"
  check "another agent version: refused, both versions named" \
    bash -c "grep -q 'another version of the jvmkit agent (0.0.1-other' '$work/other_version.log' && grep -q 'this is $version' '$work/other_version.log'"
  end "$pid"

  echo "== misuse"
  true & dead=$!; wait "$dead"
  run no_such_process 1 status "$dead"
  check "no such process" said no_such_process "no such process: $dead"
  sleep 60 & other=$!; pids+=("$other")
  run not_a_jvm 1 profile -d 1 "$other"
  check "not a JVM" said not_a_jvm "is not a HotSpot JVM"
  check "the other process was not signalled" kill -0 "$other"
  end "$other"
  start_jvm "$work/disabled.out" "$java" -XX:+DisableAttachMechanism || exit 1
  run attach_disabled 1 profile -d 1 -o "$work/disabled.collapsed" "$pid"
  check "attach disabled" said attach_disabled "DisableAttachMechanism"
  check "no thread dump provoked" bash -c "! grep -q 'Full thread dump' '$work/disabled.out'"
  end "$pid"
}

# --- Lane 4: a JVM of another user, and one in namespaces of its own ---
lane_isolated() {
  if can_start_other_user; then
    echo "== a JVM of another user (uid 65534), attached as root"
    start_jvm_as_other_user "$work/user.out" || exit 1  # it runs a copy of the classes
    run other_user 0 profile -d 1 -o "$work/user.collapsed" "$pid"
    check "another user's JVM: the profile names $hot" hot_in "$work/user.collapsed"
    check "another user's JVM: the file is ours" test "$(stat -c %u "$work/user.collapsed" 2>/dev/null)" = "$(id -u)"
    check "the agent copy it loaded" test -f "/tmp/jvmkit-$version/libjvmkit_prof.so"
    run other_user_multi 0 profile -d 1 -e cpu,alloc -o "$work/user-multi.collapsed" "$pid"
    for e in cpu alloc; do
      check "another user's JVM, -e cpu,alloc: user-multi.$e.collapsed is ours, and said" \
        bash -c "test \"\$(stat -c %u '$work/user-multi.$e.collapsed' 2>/dev/null)\" = $(id -u) &&
                 grep -q 'written to $work/user-multi.$e.collapsed' '$work/other_user_multi.log'"
    done
    run other_user_status 0 status "$pid"
    check "another user's JVM: status" said other_user_status "not running"
    end "$pid"
  else
    echo "skipped: another user's JVM (needs root and setpriv)"
  fi

  if can_start_in_namespaces; then
    echo "== a JVM in its own mount and PID namespaces, with its own /tmp"
    start_jvm_in_namespaces "$work/ns.out" || exit 1  # the agent is the tool's business
    run namespaces 0 profile -d 1 -o "$work/ns.collapsed" "$pid"
    check "a JVM in other namespaces: the profile names $hot" hot_in "$work/ns.collapsed"
    check "a JVM in other namespaces: the file is ours" test "$(stat -c %u "$work/ns.collapsed" 2>/dev/null)" = "$(id -u)"
    check "the agent copy is in the JVM's own /tmp" test -f "/proc/$pid/root/tmp/jvmkit-$version/libjvmkit_prof.so"
    check "no reply or profile left in the JVM's /tmp" \
      bash -c "! ls /proc/$pid/root/tmp | grep -qE '^jvmkit-(reply|out)-'"
    run namespaces_status 0 status "$pid"
    check "a JVM in other namespaces: status" said namespaces_status "not running"
  else
    echo "skipped: a JVM in other namespaces (needs root and unshare)"
  fi
}

lane plain lane_plain
lane loop lane_loop
lane onload lane_onload
lane isolated lane_isolated
wait
for l in "${lanes[@]}"; do
  cat "$work/lane-$l.log"
  if [ -s "$work/lane-$l.failures" ]; then
    failures=$((failures + $(cat "$work/lane-$l.failures")))
  else
    echo "FAIL: lane $l ended before its last check"; failures=$((failures + 1))
  fi
done
if [ "$failures" -gt 0 ]; then echo "jvmkit attach test: $failures FAILED"; exit 1; fi
echo "jvmkit attach test: PASS"
