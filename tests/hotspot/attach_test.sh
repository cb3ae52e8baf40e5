#!/usr/bin/env bash
# The attach client against real JVMs: attach_test.sh TOOL AGENT JAVA CLASSES
#   - a JVM started without any agent: a command runs, an agent loads and its Agent_OnAttach result
#     comes back (0 and 7), a library that does not exist is refused with the JVM's message;
#   - misuse: no such process, a process that is not a JVM (left running: no SIGQUIT sent),
#     a JVM with -XX:+DisableAttachMechanism (no thread dump provoked in its output);
#   - a JVM of another user (root attaching to uid 65534): the agent's file belongs to that user
#     (the JVM runs copies of the classes and the agent: the build tree may be root's alone);
#   - a JVM in its own mount and PID namespaces with its own /tmp, reached through /proc/<pid>/root.
set -u
tool=$1 agent=$2 java=$3 classes=$4
target=(jvmkit.test.hotspot.AttachTargetMain 30)
# shellcheck source=../support/attach_targets.sh
source "$(dirname "$0")/../support/attach_targets.sh"

echo "== a JVM started without an agent"
start_jvm "$work/plain.out" "$java" || exit 1
"$tool" "$pid" properties >"$work/props" 2>&1
check "properties command" grep -q "java.vm.name" "$work/props"
"$tool" "$pid" load "$agent" "file=$work/loaded,rc=0" >"$work/load0" 2>&1
check "agent loaded, result 0" grep -q "agent result: 0" "$work/load0"
check "Agent_OnAttach ran with its options" grep -q "attached: file=$work/loaded,rc=0" "$work/loaded"
"$tool" "$pid" load "$agent" "rc=7" >"$work/load7" 2>&1
check "agent result 7 reported" grep -q "agent result: 7" "$work/load7"
"$tool" "$pid" load "$work/no-such-lib.so" "" >"$work/loadbad" 2>&1
rc=$?
check "missing library refused" test "$rc" -eq 1
check "missing library: the JVM's message" grep -q "could not load" "$work/loadbad"
cat "$work/loadbad"

# Makes PATH a unix socket nobody listens on, an hour older than now (as one a killed JVM leaves);
# false when PATH exists or cannot be made.
make_stale_socket() {
  [ ! -e "$1" ] && python3 -c "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$1" &&
    touch -d "@$(($(date +%s) - 3600))" "$1"
}

echo "== misuse"
true & dead=$!; wait "$dead"
"$tool" "$dead" properties >"$work/dead" 2>&1
check "no such process" grep -q "no such process: $dead" "$work/dead"
sleep 60 & other=$!; pids+=("$other")
"$tool" "$other" properties >"$work/notjvm" 2>&1
check "not a JVM" grep -q "is not a HotSpot JVM" "$work/notjvm"
check "the other process was not signalled" kill -0 "$other"
start_jvm "$work/disabled.out" "$java" -XX:+DisableAttachMechanism || exit 1
"$tool" "$pid" properties >"$work/disabled" 2>&1
check "attach disabled" grep -q "DisableAttachMechanism" "$work/disabled"
cat "$work/disabled"
check "no thread dump provoked" bash -c "! grep -q 'Full thread dump' '$work/disabled.out'"
# A socket left at this pid by an earlier JVM that was killed (older than the process) is not the
# JVM's: the same answer, not a refused connection.
stale="/tmp/.java_pid$pid"
if make_stale_socket "$stale"; then
  "$tool" "$pid" properties >"$work/stale" 2>&1
  check "a stale socket at the JVM's pid is not its own" grep -q "DisableAttachMechanism" "$work/stale"
  cat "$work/stale"
  rm -f "$stale"
fi

if can_start_other_user; then
  echo "== a JVM of another user (uid 65534), attached as root"
  # That user's JVM runs a copy of the classes and loads a copy of the agent, in $work.
  start_jvm_as_other_user "$work/user.out" || exit 1
  # A stale socket of root's at that pid, which that user's JVM could not replace in the sticky
  # /tmp: the tool removes it (it is older than the process) before it starts the listener.
  if make_stale_socket "/tmp/.java_pid$pid"; then echo "(a stale socket of root's at its pid)"; fi
  "$tool" "$pid" load "$(copy_for_other_user "$agent")" "file=$work/user-loaded" >"$work/userload" 2>&1
  check "agent loaded into another user's JVM" grep -q "agent result: 0" "$work/userload"
  check "its file belongs to that user" test "$(stat -c %u "$work/user-loaded" 2>/dev/null)" = 65534
  cat "$work/userload"
else
  echo "skipped: another user's JVM (needs root and setpriv)"
fi

if can_start_in_namespaces; then
  echo "== a JVM in its own mount and PID namespaces, with its own /tmp"
  # Its new /tmp hides whatever the build tree has under /tmp: it loads a copy of the agent in $work.
  cp "$agent" "$work/agent.so"
  start_jvm_in_namespaces "$work/ns.out" || exit 1
  "$tool" "$pid" load "$work/agent.so" "file=/tmp/ns-loaded" >"$work/nsload" 2>&1
  check "agent loaded into a JVM in other namespaces" grep -q "agent result: 0" "$work/nsload"
  check "its file is in the JVM's own /tmp" test -f "/proc/$pid/root/tmp/ns-loaded"
  check "and not in ours" test ! -e /tmp/ns-loaded
  cat "$work/nsload"
else
  echo "skipped: a JVM in other namespaces (needs root and unshare)"
fi

if [ "$failures" -gt 0 ]; then echo "attach test: $failures FAILED"; exit 1; fi
echo "attach test: PASS"
