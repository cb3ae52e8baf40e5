#!/usr/bin/env bash
# JFR output (file=x.jfr), read by the JDK's own tools:
#   1. The same run's recording and collapsed stacks agree: a run of cpu, alloc and lock writes its
#      recording as it goes; `jvmkit stop -o x.collapsed` writes the collapsed stacks of the same
#      samples and ends the recording. jdk.jfr.consumer.RecordingFile (JfrCollapse) reads every
#      event back into collapsed stacks, which must equal the profiler's line for line (each
#      sample's stack, class and weight), and every sample's time lies within the run, in order
#      per thread. `jfr print` and `jfr summary` read it without an error.
#   2. `jvmkit dump` makes the file readable while the run goes on; `jvmkit profile -o x.jfr PID`
#      (attached) writes a recording.
#   3. A JVM killed with SIGKILL leaves a file that the JDK's tools read up to its last chunk.
#   4. loop= writes a recording per window, each readable on its own.
# Usage: jfr_output.sh JDK_HOME AGENT JVMKIT CLASSES JFR_CLASSES OUTDIR
set -uo pipefail
jdk=$1 agent=$2 jvmkit=$3 classes=$4 jfr_classes=$5 out=$6
java=$jdk/bin/java
rm -rf "$out" && mkdir -p "$out"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done' EXIT

# Waits (at most 120 s) until FILE holds at least BYTES bytes: a chunk or more was written.
wait_for_bytes() {
  for _ in $(seq 1200); do
    [ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}

# The JDK's tools read FILE without an error (jfr print, jfr summary, RecordingFile).
read_by_jdk() {
  local file=$1 name=$2
  "$jdk/bin/jfr" summary "$file" >"$out/$name.summary" 2>&1 || { cat "$out/$name.summary"; fail "$name: jfr summary failed"; }
  "$jdk/bin/jfr" print "$file" >"$out/$name.print" 2>&1 || { tail "$out/$name.print"; fail "$name: jfr print failed"; }
  "$java" -cp "$jfr_classes" jvmkit.test.jfr.JfrDump "$file" >"$out/$name.dump" 2>&1 ||
    { tail -3 "$out/$name.dump"; fail "$name: RecordingFile failed"; }
  grep -m1 '^events=' "$out/$name.dump"
}

# --- 1. The recording and the collapsed stacks of one run ---
"$java" "-agentpath:$agent=event=cpu,alloc,lock,interval=1ms,alloc=16k,file=$out/rec.jfr" -cp "$classes" \
  jvmkit.test.profiler.LockShares 300 "$out/rec.truth" >"$out/rec.stdout" 2>&1 &
pid=$!
pids+=("$pid")
# Two chunks written (a chunk a second) and then some: samples of every event are in.
wait_for_bytes "$out/rec.jfr" 1 || fail "no recording written"
sleep 2.5
"$jvmkit" stop -o "$out/rec.collapsed" "$pid" >"$out/rec.stop" 2>&1 || { cat "$out/rec.stop"; fail "jvmkit stop failed"; }
cat "$out/rec.stop"
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
grep -q "wrote jfr output ([1-9][0-9]* samples) to $out/rec.jfr" "$out/rec.stop" || fail "stop does not report the recording"
"$java" -cp "$jfr_classes" jvmkit.test.jfr.JfrCollapse "$out/rec.jfr" "$out/jfr" >"$out/rec.collapse" 2>&1 ||
  { cat "$out/rec.collapse"; fail "the recording's times or events are wrong"; }
cat "$out/rec.collapse"
for e in cpu alloc lock; do
  [ -s "$out/rec.$e.collapsed" ] || { fail "no collapsed output for $e"; continue; }
  sort "$out/rec.$e.collapsed" >"$out/profile.$e.sorted"
  sort "$out/jfr.$e.collapsed" >"$out/jfr.$e.sorted" 2>/dev/null
  if diff -q "$out/profile.$e.sorted" "$out/jfr.$e.sorted" >/dev/null; then
    echo "$e: the recording's $(wc -l <"$out/jfr.$e.sorted") stacks equal the collapsed output's"
  else
    diff "$out/profile.$e.sorted" "$out/jfr.$e.sorted" | head -10
    fail "$e: the recording's stacks differ from the collapsed output's"
  fi
done
# jvmkit convert reads the recording back into the same stacks: counts for cpu, weights (--total)
# for alloc and lock, as the profiler's collapsed output shows them.
"$jvmkit" convert "$out/rec.jfr" -o "$out/conv.collapsed" --event cpu 2>"$out/conv.log" || { cat "$out/conv.log"; fail "convert failed"; }
for e in alloc lock; do
  "$jvmkit" convert "$out/rec.jfr" -o "$out/conv.$e.collapsed" --event $e --total 2>>"$out/conv.log" || fail "convert --event $e failed"
done
mv "$out/conv.collapsed" "$out/conv.cpu.collapsed" 2>/dev/null
for e in cpu alloc lock; do
  if sort "$out/conv.$e.collapsed" | diff -q - "$out/profile.$e.sorted" >/dev/null; then
    echo "$e: jvmkit convert gives the collapsed output's stacks"
  else
    sort "$out/conv.$e.collapsed" | diff - "$out/profile.$e.sorted" | head -6
    fail "$e: jvmkit convert's stacks differ from the collapsed output's"
  fi
done
grep -q 'LockShares.waitMonitor;java.lang.Object ' "$out/jfr.lock.sorted" || fail "no monitor waits (jdk.JavaMonitorEnter)"
grep -q 'ReentrantLock$NonfairSync ' "$out/jfr.lock.sorted" || fail "no parks (jdk.ThreadPark)"
read_by_jdk "$out/rec.jfr" rec >/dev/null
for type in jdk.ExecutionSample jdk.ObjectAllocationSample jdk.JavaMonitorEnter jdk.ThreadPark jdk.ActiveRecording jdk.ActiveSetting; do
  grep -Eq "^ *$type +[1-9]" "$out/rec.summary" || fail "jfr summary counts no $type"
done

# --- 2. dump: the file is readable while the run goes on ---
"$java" "-agentpath:$agent=event=cpu,interval=1ms,file=$out/dumped.jfr,chunktime=60s" -cp "$classes" \
  jvmkit.test.profiler.LockShares 300 "$out/dumped.truth" >/dev/null 2>&1 &
pid=$!
pids+=("$pid")
sleep 1
"$jvmkit" dump "$pid" >"$out/dumped.answer" 2>&1 || { cat "$out/dumped.answer"; fail "jvmkit dump failed"; }
grep -q "wrote jfr output ([1-9][0-9]* samples) to $out/dumped.jfr" "$out/dumped.answer" ||
  { cat "$out/dumped.answer"; fail "dump does not report the recording"; }
echo "dump, while the run goes on: $(read_by_jdk "$out/dumped.jfr" dumped)"
grep -q '^event jdk.ExecutionSample' "$out/dumped.dump" || fail "the dumped recording has no samples"
kill -9 "$pid" 2>/dev/null

# --- 2b. The jvmkit tool attached to a running JVM: -o x.jfr is a recording too ---
"$java" -cp "$classes" jvmkit.test.profiler.PhaseShift 300 0 >"$out/attached.stdout" 2>&1 &
pid=$!
pids+=("$pid")
# Attach once the JVM runs its program (its "ready" line; at most 120 s on a busy host).
for _ in $(seq 1200); do grep -q ready "$out/attached.stdout" && break; sleep 0.1; done
"$jvmkit" profile -d 2 -o "$out/attached.jfr" "$pid" >"$out/attached.answer" 2>&1 ||
  { cat "$out/attached.answer"; fail "jvmkit profile -o x.jfr PID failed"; }
echo "attached, jvmkit profile -d 2 -o attached.jfr: $(read_by_jdk "$out/attached.jfr" attached)"
grep -q '^event jdk.ExecutionSample' "$out/attached.dump" || fail "the attached run's recording has no samples"
kill -9 "$pid" 2>/dev/null

# --- 3. SIGKILL: the chunks written are read ---
"$java" "-agentpath:$agent=event=cpu,interval=1ms,file=$out/killed.jfr,chunktime=200ms" -cp "$classes" \
  jvmkit.test.profiler.LockShares 300 "$out/killed.truth" >/dev/null 2>&1 &
pid=$!
pids+=("$pid")
wait_for_bytes "$out/killed.jfr" 1 || fail "no chunk written before the kill"
sleep 1
kill -9 "$pid"
wait "$pid" 2>/dev/null
echo "killed with SIGKILL: $(read_by_jdk "$out/killed.jfr" killed)"
chunks=$(sed -n 's/^ *Chunks: *//p' "$out/killed.summary")
[ "${chunks:-0}" -ge 2 ] || fail "the killed JVM's recording has ${chunks:-no} chunks, not 2 or more"
grep -q '^event jdk.ExecutionSample' "$out/killed.dump" || fail "the killed JVM's recording has no samples"

# --- 4. loop=: a recording per window ---
"$java" "-agentpath:$agent=event=cpu,interval=1ms,loop=1s,file=$out/window-%t.jfr" -cp "$classes" \
  jvmkit.test.profiler.LockShares 3.5 "$out/window.truth" >"$out/window.stderr" 2>&1 || fail "the loop= run failed"
windows=0
for f in "$out"/window-*.jfr; do
  [ -e "$f" ] || continue
  windows=$((windows + 1))
  read_by_jdk "$f" "window$windows" >/dev/null
done
[ "$windows" -ge 3 ] || fail "loop=1s over 3.5 s wrote $windows recordings"
echo "loop=1s: $windows recordings, each read by the JDK's tools"

[ "$failures" -eq 0 ] && echo PASS
exit $((failures > 0))
