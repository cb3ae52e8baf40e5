#!/usr/bin/env bash
# The attach client against real JVMs: attach_test.sh TOOL AGENT JAVA CLASSES
#   - a JVM started without any agent: a command runs, an agent loads and its Agent_OnAttach result
#     comes back (0 and 7), a library that does not exist is refused with the JVM's message;
#   - misuse: no such process, a process that is not a JVM (left running: no SIGQUIT sent),
#     a JVM with -XX:+DisableAttachMechanism (no thread dump provoked in its output);
#   - a JVM of another user (root attaching to uid 65534): the agent's file belongs to that user;
#   - a JVM in its own mount and PID namespaces with its own /tmp, reached through /proc/<pid>/root.
set -u
tool=$1 agent=$2 java=$3 classes=$4
# Outside /tmp: the namespace case mounts a /tmp of its own over it.
work=$(mktemp -d /var/tmp/jvmkit-attach.XXXXXX)
chmod 777 "$work"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
failures=0
check() {  # check NAME CONDITION-COMMAND...
  local name=$1; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; failures=$((failures + 1)); fi
}
# Starts a JVM with the given prefix command and JVM options; sets $pid (of the java process) and
# waits for its "ready" line.
start_jvm() {
  local out=$1; shift
  "$@" -cp "$classes" jvmkit.test.hotspot.AttachTargetMain 30 >"$out" 2>&1 &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 1 100); do grep -q ready "$out" 2>/dev/null && return 0; sleep 0.1; done
  echo "JVM did not start: $(head -5 "$out")"; return 1
}

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

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  echo "== a JVM of another user (uid 65534), attached as root"
  start_jvm "$work/user.out" setpriv --reuid=65534 --regid=65534 --clear-groups "$java" || exit 1
  "$tool" "$pid" load "$agent" "file=$work/user-loaded" >"$work/userload" 2>&1
  check "agent loaded into another user's JVM" grep -q "agent result: 0" "$work/userload"
  check "its file belongs to that user" test "$(stat -c %u "$work/user-loaded" 2>/dev/null)" = 65534
  cat "$work/userload"
else
  echo "skipped: another user's JVM (needs root and setpriv)"
fi

if [ "$(id -u)" -eq 0 ] && unshare --mount --pid --fork true 2>/dev/null; then
  echo "== a JVM in its own mount and PID namespaces, with its own /tmp"
  # The JVM's /tmp is a new tmpfs, which hides whatever the build tree has under /tmp: it gets
  # copies of the classes and the agent in $work.
  cp -r "$classes" "$work/classes" && cp "$agent" "$work/agent.so"
  unshare --mount --pid --fork --mount-proc sh -c \
    "mount -t tmpfs tmpfs /tmp && exec '$java' -cp '$work/classes' jvmkit.test.hotspot.AttachTargetMain 30" \
    >"$work/ns.out" 2>&1 &
  outer=$!
  pids+=("$outer")
  for _ in $(seq 1 100); do grep -q ready "$work/ns.out" 2>/dev/null && break; sleep 0.1; done
  # The java process is pid 1 of the new PID namespace: the one whose last NSpid is 1.
  jpid=$(pgrep -f "AttachTargetMain" | while read -r p; do grep -q "NSpid:.*[[:space:]]1$" /proc/$p/status && echo "$p"; done | head -1)
  pids+=("$jpid")
  echo "java in the namespace: host pid $jpid, $(grep NSpid /proc/"$jpid"/status)"
  [ -n "$jpid" ] || { echo "the JVM in the namespaces did not start: $(head -5 "$work/ns.out")"; }
  "$tool" "$jpid" load "$work/agent.so" "file=/tmp/ns-loaded" >"$work/nsload" 2>&1
  check "agent loaded into a JVM in other namespaces" grep -q "agent result: 0" "$work/nsload"
  check "its file is in the JVM's own /tmp" test -f "/proc/$jpid/root/tmp/ns-loaded"
  check "and not in ours" test ! -e /tmp/ns-loaded
  cat "$work/nsload"
else
  echo "skipped: a JVM in other namespaces (needs root and unshare)"
fi

if [ "$failures" -gt 0 ]; then echo "attach test: $failures FAILED"; exit 1; fi
echo "attach test: PASS"
