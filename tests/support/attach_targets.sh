# shellcheck shell=bash
# JVMs to attach to, for the tests that drive HotSpot's attach mechanism from a script
# (tests/hotspot/attach_test.sh, tests/cli/attach_profile.sh). Sourced, after setting:
#   java     the java binary
#   classes  the class path
#   target   an array: the main class that prints "ready" once it runs, and its arguments
# It gives a work folder $work (under /var/tmp, writable by everyone: the namespace case mounts a
# /tmp of its own over /tmp, and another user's JVM writes there), removed at exit with every JVM
# started here killed; check NAME COMMAND... counts $failures; and the JVM starters below.
# What a process of another user (uid 65534) runs or reads must be in $work: the build tree may be
# where only root may enter (a clone under /root, or in a folder made by mktemp -d).

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

# start_jvm OUT COMMAND...: runs COMMAND... -cp $classes ${target[@]} (COMMAND: java with a prefix
# such as setpriv, and JVM options) with its output in OUT; sets $pid (of the java process) and
# waits for its "ready" line.
start_jvm() {
  local out=$1; shift
  "$@" -cp "$classes" "${target[@]}" >"$out" 2>&1 &
  pid=$!
  pids+=("$pid")
  wait_ready "$out" "$pid"
}

# wait_ready OUT PID: waits until OUT has the "ready" line, while PID lives (at most 120 s: a JVM
# starts in well under a second on an idle host, in several on a busy one).
wait_ready() {
  local out=$1 waited=$2
  for _ in $(seq 1 1200); do
    grep -q ready "$out" 2>/dev/null && return 0
    kill -0 "$waited" 2>/dev/null || break
    sleep 0.1
  done
  echo "JVM did not start: $(head -5 "$out")"; return 1
}

# start_jvm_as_other_user OUT [JVM OPTIONS...]: start_jvm as uid 65534, running a copy of the
# classes in $work (the JVM's user must be able to read them).
start_jvm_as_other_user() {
  local out=$1; shift
  [ -d "$work/user-classes" ] || cp -r "$classes" "$work/user-classes"
  chmod -R a+rX "$work/user-classes"
  local own_classes=$classes
  classes=$work/user-classes
  start_jvm "$out" setpriv --reuid=65534 --regid=65534 --clear-groups "$java" "$@"
  local rc=$?
  classes=$own_classes
  return $rc
}

# copy_for_other_user FILE: prints the path of a copy of FILE in $work that uid 65534 may read and
# run (for a library another user's JVM loads, or a program run as that user).
copy_for_other_user() {
  local copy
  copy=$work/user-files/$(basename "$1")
  mkdir -p "$work/user-files" && cp "$1" "$copy" && chmod -R a+rX "$work/user-files" && echo "$copy"
}

# Whether this test may start JVMs as another user (uid 65534) and in namespaces of their own.
can_start_other_user() { [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; }
can_start_in_namespaces() { [ "$(id -u)" -eq 0 ] && unshare --mount --pid --fork true 2>/dev/null; }

# start_jvm_in_namespaces OUT: starts the target in its own mount and PID namespaces, with a /tmp of
# its own (a new tmpfs, which hides whatever the build tree has under /tmp: it runs copies of the
# classes, in $work/classes), output in OUT; sets $pid to the java process's pid here (it is pid 1
# there) and waits for its "ready" line.
start_jvm_in_namespaces() {
  local out=$1
  cp -r "$classes" "$work/classes"
  unshare --mount --pid --fork --mount-proc sh -c \
    "mount -t tmpfs tmpfs /tmp && exec '$java' -cp '$work/classes' ${target[*]}" >"$out" 2>&1 &
  local unshare_pid=$!
  pids+=("$unshare_pid")
  wait_ready "$out" "$unshare_pid" || return 1
  # The java process is unshare's child (pid 1 of the new PID namespace). Looked up by parent, not
  # by command line: the same test may run on another JDK at the same time.
  pid=$(pgrep -P "$unshare_pid" | head -1)
  [ -n "$pid" ] || { echo "the JVM in the namespaces did not start: $(head -5 "$out")"; return 1; }
  pids+=("$pid")
  echo "java in the namespaces: pid $pid here, $(grep NSpid /proc/"$pid"/status)"
}
