#!/bin/bash
# jvmkit's reader (src/jfr/reader.hpp, through jfr_read_check) against the JDK's own
# (jdk.jfr.consumer.RecordingFile, through JfrDump) on the same files:
#   - a recording the JDK makes itself (settings=profile) of JfrBusy running for about a second:
#     CPU and allocation samples, monitor waits, parks, and the JVM's hundreds of other events;
#   - all_types.jfr of jfr_write_sample: every type jvmkit writes, in two chunks.
# Both readers must give the same events in the same order: type, start, duration, thread (OS and
# Java ids), class (objectClass, monitorClass or parkedClass), weight and every frame of the stack
# (CLASS.METHODDESCRIPTOR, line, bytecode index, frame type), and the same count of each type.
# Usage: jdk_recording.sh JDK_HOME READ_CHECK WRITE_SAMPLE CLASSES OUT_DIR
set -u
jdk=$1 check=$2 writer=$3 classes=$4 out=$5
rm -rf "$out" && mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }

# JfrDump's text cut to what jfr_read_check prints. The thread is sampledThread's, else
# eventThread's (its ids; a Java id of 0 is -1, as JDK 21+ reads it); the class is the first
# objectClass, monitorClass or parkedClass (null is empty); a stack without frames is left out
# (jvmkit's reader tells no empty stack from none).
normalize() {
  awk '
    function value(line, name,    m) {
      if (match(line, " " name "=[^ ]*")) return substr(line, RSTART + length(name) + 2, RLENGTH - length(name) - 2)
      return ""
    }
    function ids(line, name,    v) {
      if (!match(line, " " name "=-?[0-9]+/-?[0-9]+/")) return ""
      v = substr(line, RSTART + length(name) + 2, RLENGTH - length(name) - 3)
      sub(/\/0$/, "/-1", v)
      return v
    }
    /^event / {
      pending = ""
      thread = ids($0, "sampledThread")
      if (thread == "") thread = ids($0, "eventThread")
      if (thread == "") thread = "null"
      klass = value($0, "objectClass")
      if (klass == "") klass = value($0, "monitorClass")
      if (klass == "") klass = value($0, "parkedClass")
      if (klass == "null") klass = ""
      weight = value($0, "weight")
      if (weight == "") weight = 0
      print $1, $2, $3, $4, "thread=" thread, "class=" klass, "weight=" weight
      next
    }
    /^  truncated=/ { pending = $0; next }
    /^  frame / { if (pending != "") print pending; pending = ""; print; next }
  '
}

# Reads FILE with both readers and compares; NAME names the outputs in OUT.
compare() {
  local file=$1 name=$2
  # Names in UTF-8 whatever the locale: JDK 17 reads sun.stdout.encoding, 18 and later stdout.encoding.
  "$jdk/bin/java" -Dsun.stdout.encoding=UTF-8 -Dstdout.encoding=UTF-8 -cp "$classes" jvmkit.test.jfr.JfrDump "$file" \
    > "$out/$name.dump" 2>&1 ||
    { tail -3 "$out/$name.dump"; fail "$name: RecordingFile could not read $file"; }
  "$check" "$file" > "$out/$name.check" 2>&1 || { tail -3 "$out/$name.check"; fail "$name: jvmkit's reader failed"; }
  normalize < "$out/$name.dump" > "$out/$name.jdk"
  sed 's/^\(event .* thread=[0-9-]*\)\/0 /\1\/-1 /' "$out/$name.check" | grep -v '^count \|^events=' > "$out/$name.jvmkit"
  diff -u "$out/$name.jdk" "$out/$name.jvmkit" > "$out/$name.diff" ||
    { head -40 "$out/$name.diff"; fail "$name: jvmkit's reader read other events than RecordingFile"; }
  grep '^event ' "$out/$name.jdk" | awk '{print $2}' | LC_ALL=C sort | uniq -c | awk '{print "count " $2 " " $1}' \
    > "$out/$name.jdk_counts"
  grep '^count ' "$out/$name.check" | diff -u "$out/$name.jdk_counts" - ||
    fail "$name: the readers count other events per type"
  local events frames
  events=$(grep -m1 '^events=' "$out/$name.dump")
  grep -qx "$events" "$out/$name.check" || fail "$name: RecordingFile read $events, jvmkit's reader $(grep '^events=' "$out/$name.check")"
  frames=$(grep -c '^  frame ' "$out/$name.jdk")
  echo "$name: the same $events and $frames frames; $(grep -c '^count ' "$out/$name.check") event types"
}

# A recording by the JDK itself.
"$jdk/bin/java" "-XX:StartFlightRecording=filename=$out/jdk.jfr,settings=profile" -cp "$classes" \
  jvmkit.test.jfr.JfrBusy 1200 > "$out/busy.log" 2>&1 || { cat "$out/busy.log"; fail "the recorded program failed"; }
compare "$out/jdk.jfr" jdk
for type in jdk.ExecutionSample jdk.ObjectAllocationSample; do
  n=$(grep "^count $type " "$out/jdk.check" | awk '{print $3}')
  [ "${n:-0}" -gt 0 ] || fail "the JDK's recording holds no $type: nothing was compared"
  stacks=$(awk -v t="$type" '/^event / {on = ($2 == t)} on && /^  frame /' "$out/jdk.jvmkit" | wc -l)
  [ "$stacks" -gt 0 ] || fail "no $type has a stack"
  echo "  $type: $n events, $stacks frames"
done

# jvmkit's own file of every type.
"$writer" "$out" || fail "the sample writer failed"
compare "$out/all_types.jfr" all_types
echo PASS
