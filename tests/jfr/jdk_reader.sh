#!/bin/bash
# The JDK's own readers on the files jfr_write_sample writes:
#   - jdk.jfr.consumer.RecordingFile (through JfrDump) reads every event, field and frame back as
#     written (compared with the expected text the sample writer prints from its own input);
#   - `jfr print` and `jfr summary` read the files without an error, and summary counts the events;
#   - a file whose last chunk was cut short gives the events of the whole chunks before it.
# Usage: jdk_reader.sh JDK_HOME WRITE_SAMPLE CLASSES OUT_DIR
set -u
jdk=$1 writer=$2 classes=$3 out=$4
rm -rf "$out" && mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }

"$writer" "$out" || fail "the sample writer failed"

# RecordingFile: every event, exactly.
"$jdk/bin/java" -cp "$classes" jvmkit.test.jfr.JfrDump "$out/all_types.jfr" > "$out/all_types.read" 2>&1 ||
  { cat "$out/all_types.read"; fail "RecordingFile could not read all_types.jfr"; }
grep -v '^events=' "$out/all_types.read" > "$out/all_types.events"
diff -u "$out/all_types.expected" "$out/all_types.events" || fail "RecordingFile read other events than were written"
events=$(grep -c '^event ' "$out/all_types.expected")
grep -qx "events=$events" "$out/all_types.read" || fail "RecordingFile did not count $events events"
echo "RecordingFile: $events events read back as written"

# jfr print, plain and as JSON: no error, every event printed.
for format in "" --json; do
  "$jdk/bin/jfr" print $format "$out/all_types.jfr" > "$out/print$format.txt" 2>&1 ||
    { tail -20 "$out/print$format.txt"; fail "jfr print $format failed"; }
  grep -qi "exception\|error" "$out/print$format.txt" && { grep -i -m5 "exception\|error" "$out/print$format.txt"; fail "jfr print $format reported an error"; }
done
printed=$(grep -c '^jdk\.\|^jvmkit\.\|^profiler\.' "$out/print.txt")
[ "$printed" = "$events" ] || fail "jfr print printed $printed events, not $events"
grep -q 'Ünïcødé ☃ worker' "$out/print.txt" || fail "jfr print lost the thread name's characters"
grep -q 'line: 1503' "$out/print.txt" || fail "jfr print shows no line numbers"

# jfr summary: the chunks and the count of each type.
"$jdk/bin/jfr" summary "$out/all_types.jfr" > "$out/summary.txt" 2>&1 || { cat "$out/summary.txt"; fail "jfr summary failed"; }
grep -Eq '^ *Chunks: *2$' "$out/summary.txt" || { cat "$out/summary.txt"; fail "jfr summary does not count 2 chunks"; }
grep -Eq '^ *jdk.ExecutionSample +6 ' "$out/summary.txt" || { cat "$out/summary.txt"; fail "jfr summary does not count 6 execution samples"; }
grep -Eq '^ *profiler.WallClockSample +2 ' "$out/summary.txt" || { cat "$out/summary.txt"; fail "jfr summary does not count 2 wall-clock samples"; }
echo "jfr print and jfr summary: no errors, $events events"

# A last chunk cut short (a JVM killed while it wrote one): the whole chunk before it is read as
# written. RecordingFile reads one event ahead, so the error of the cut chunk costs the last event
# of the whole one: at most that one may be missing.
"$jdk/bin/java" -cp "$classes" jvmkit.test.jfr.JfrDump "$out/cut.jfr" > "$out/cut.read" 2>&1
grep '^event \|^  ' "$out/cut.read" > "$out/cut.events"
head -n "$(wc -l < "$out/cut.events")" "$out/cut.expected" | diff -u - "$out/cut.events" ||
  fail "the whole chunk before the cut one was not read as written"
read_events=$(grep -c '^event ' "$out/cut.events")
whole=$(grep -c '^event ' "$out/cut.expected")
[ "$read_events" -ge $((whole - 1)) ] || fail "only $read_events of the whole chunk's $whole events were read"
echo "cut file: $read_events of the $whole events of its whole chunk read ($(grep -m1 '^error\|^events' "$out/cut.read"))"
echo PASS
