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
# The sections' JVMs are independent of each other, so the sections run side by side, each one's
# output in $out/NAME.log, shown in order at the end. None of them waits for a time to pass: each
# waits for what it needs (chunks in the file, samples that jvmkit status or a dump shows, the
# program's "ready" line), or runs for a wall-clock time that a busy host only stretches (loop='s
# windows, LockShares' sleep). The JDK's tools read each file side by side too, with C1 only and
# the serial collector: JVM options that make a short read cheaper, not different.
# Usage: jfr_output.sh JDK_HOME AGENT JVMKIT CLASSES JFR_CLASSES OUTDIR
set -uo pipefail
jdk=$1 agent=$2 jvmkit=$3 classes=$4 jfr_classes=$5 out=$6
java=$jdk/bin/java
rm -rf "$out" && mkdir -p "$out"
# A failure is a line in $out/failures: the sections, and the reads, run in subshells.
fail() { echo "FAIL: $*"; echo "$*" >>"$out/failures"; }
# The JVMs started (in a file, for the same reason), killed at exit if still running.
started() { echo "$1" >>"$out/jvm.pids"; }
trap 'if [ -f "$out/jvm.pids" ]; then while read -r p; do kill -9 "$p" 2>/dev/null; done <"$out/jvm.pids"; fi' EXIT
quick=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)      # for the readers: java ...
jquick=(-J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC)  # ... and jfr ...

# Waits (at most 120 s) until FILE holds N chunks. The agent writes a chunk whole, at once, and a
# chunk begins with the magic "FLR\0": counting it tells how many are in.
chunks_in() { LC_ALL=C grep -aoP 'FLR\x00' "$1" 2>/dev/null | wc -l; }
wait_for_chunks() {
  for _ in $(seq 1200); do
    [ "$(chunks_in "$1")" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}

# Waits (at most 120 s) until the JVM PID catches SIGQUIT (SigCgt in /proc/PID/status), the signal
# that starts its attach listener: sent earlier, SIGQUIT would end the JVM.
wait_attachable() {
  local mask
  for _ in $(seq 1200); do
    mask=$(awk '/^SigCgt:/ {print $2}' "/proc/$1/status" 2>/dev/null)
    [ -n "$mask" ] && (((0x$mask & 4) != 0)) && return 0
    sleep 0.1
  done
  return 1
}

# Waits (at most 120 s) until jvmkit status says that the run in the JVM PID has MIN samples.
wait_for_samples() {
  local n
  for _ in $(seq 600); do
    n=$("$jvmkit" status "$1" 2>/dev/null | sed -n 's/^running: .*, \([0-9][0-9]*\) samples$/\1/p')
    [ "${n:-0}" -ge "$2" ] && return 0
    sleep 0.2
  done
  return 1
}

# Waits (at most 120 s) until a dump of the run in the JVM PID (collapsed stacks, a file per event,
# the recording untouched) has samples of every event: cpu, alloc, and lock with both a monitor
# wait and a park.
wait_for_events() {
  for _ in $(seq 300); do
    rm -f "$out"/wait.*.collapsed
    "$jvmkit" dump -o "$out/wait.collapsed" "$1" >/dev/null 2>&1
    [ -s "$out/wait.cpu.collapsed" ] && [ -s "$out/wait.alloc.collapsed" ] &&
      grep -q 'LockShares.waitMonitor;java.lang.Object ' "$out/wait.lock.collapsed" 2>/dev/null &&
      grep -q 'ReentrantLock$NonfairSync ' "$out/wait.lock.collapsed" && return 0
    sleep 0.3
  done
  return 1
}

# The JDK's tools read FILE without an error (jfr summary, jfr print, RecordingFile), side by side;
# prints RecordingFile's (JfrDump's) events=N line.
read_by_jdk() {
  local file=$1 name=$2 summary print dump
  "$jdk/bin/jfr" "${jquick[@]}" summary "$file" >"$out/$name.summary" 2>&1 &
  summary=$!
  "$jdk/bin/jfr" "${jquick[@]}" print "$file" >"$out/$name.print" 2>&1 &
  print=$!
  "$java" "${quick[@]}" -cp "$jfr_classes" jvmkit.test.jfr.JfrDump "$file" >"$out/$name.dump" 2>&1 &
  dump=$!
  wait "$summary" || { cat "$out/$name.summary" >&2; fail "$name: jfr summary failed"; }
  wait "$print" || { tail "$out/$name.print" >&2; fail "$name: jfr print failed"; }
  wait "$dump" || { tail -3 "$out/$name.dump" >&2; fail "$name: RecordingFile failed"; }
  grep -m1 '^events=' "$out/$name.dump"
}

# --- 1. The recording and the collapsed stacks of one run ---
section_rec() {
  "$java" "-agentpath:$agent=event=cpu,alloc,lock,interval=1ms,alloc=16k,file=$out/rec.jfr" -cp "$classes" \
    jvmkit.test.profiler.LockShares 300 "$out/rec.truth" >"$out/rec.stdout" 2>&1 &
  local pid=$! reads
  started "$pid"
  # Two chunks written (a chunk a second; stop writes one more) and samples of every event in: the
  # recording has them in more than one chunk.
  wait_for_chunks "$out/rec.jfr" 2 || fail "no two chunks written ($(chunks_in "$out/rec.jfr"))"
  { wait_attachable "$pid" && wait_for_events "$pid"; } || fail "no samples of every event (jvmkit dump)"
  "$jvmkit" stop -o "$out/rec.collapsed" "$pid" >"$out/rec.stop" 2>&1 || { cat "$out/rec.stop"; fail "jvmkit stop failed"; }
  cat "$out/rec.stop"
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  grep -q "wrote jfr output ([1-9][0-9]* samples) to $out/rec.jfr" "$out/rec.stop" || fail "stop does not report the recording"
  read_by_jdk "$out/rec.jfr" rec >/dev/null &  # meanwhile, the comparisons
  reads=$!
  "$java" "${quick[@]}" -cp "$jfr_classes" jvmkit.test.jfr.JfrCollapse "$out/rec.jfr" "$out/jfr" >"$out/rec.collapse" 2>&1 ||
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
  wait "$reads"
  for type in jdk.ExecutionSample jdk.ObjectAllocationSample jdk.JavaMonitorEnter jdk.ThreadPark jdk.ActiveRecording jdk.ActiveSetting; do
    grep -Eq "^ *$type +[1-9]" "$out/rec.summary" || fail "jfr summary counts no $type"
  done
}

# --- 2. dump: the file is readable while the run goes on ---
section_dump() {
  "$java" "-agentpath:$agent=event=cpu,interval=1ms,file=$out/dumped.jfr,chunktime=60s" -cp "$classes" \
    jvmkit.test.profiler.LockShares 300 "$out/dumped.truth" >/dev/null 2>&1 &
  local pid=$!
  started "$pid"
  # Dumped once the run has samples (long before its first chunk is due).
  { wait_attachable "$pid" && wait_for_samples "$pid" 1; } || fail "jvmkit status counts no samples"
  "$jvmkit" dump "$pid" >"$out/dumped.answer" 2>&1 || { cat "$out/dumped.answer"; fail "jvmkit dump failed"; }
  grep -q "wrote jfr output ([1-9][0-9]* samples) to $out/dumped.jfr" "$out/dumped.answer" ||
    { cat "$out/dumped.answer"; fail "dump does not report the recording"; }
  echo "dump, while the run goes on: $(read_by_jdk "$out/dumped.jfr" dumped)"
  grep -q '^event jdk.ExecutionSample' "$out/dumped.dump" || fail "the dumped recording has no samples"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}

# --- 2b. The jvmkit tool attached to a running JVM: -o x.jfr is a recording too ---
section_attached() {
  "$java" -cp "$classes" jvmkit.test.profiler.PhaseShift 300 0 >"$out/attached.stdout" 2>&1 &
  local pid=$!
  started "$pid"
  # Attach once the JVM runs its program (its "ready" line; at most 120 s on a busy host). It spins
  # on one thread: a second sampled every 1 ms has up to 1000 samples, and still tens when the JVM
  # gets a few percent of a CPU (the other sections' JVMs start meanwhile; a busy host).
  for _ in $(seq 1200); do grep -q ready "$out/attached.stdout" && break; sleep 0.1; done
  "$jvmkit" profile -d 1 -i 1ms -o "$out/attached.jfr" "$pid" >"$out/attached.answer" 2>&1 ||
    { cat "$out/attached.answer"; fail "jvmkit profile -o x.jfr PID failed"; }
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  echo "attached, jvmkit profile -d 1 -i 1ms -o attached.jfr: $(read_by_jdk "$out/attached.jfr" attached)"
  grep -q '^event jdk.ExecutionSample' "$out/attached.dump" || fail "the attached run's recording has no samples"
}

# --- 3. SIGKILL: the chunks written are read ---
section_killed() {
  "$java" "-agentpath:$agent=event=cpu,interval=1ms,file=$out/killed.jfr,chunktime=200ms" -cp "$classes" \
    jvmkit.test.profiler.LockShares 300 "$out/killed.truth" >/dev/null 2>&1 &
  local pid=$!
  started "$pid"
  # Killed once three chunks are in: two or more whole ones, whatever the kill cuts.
  wait_for_chunks "$out/killed.jfr" 3 || fail "no three chunks written before the kill ($(chunks_in "$out/killed.jfr"))"
  kill -9 "$pid"
  wait "$pid" 2>/dev/null
  echo "killed with SIGKILL: $(read_by_jdk "$out/killed.jfr" killed)"
  chunks=$(sed -n 's/^ *Chunks: *//p' "$out/killed.summary")
  [ "${chunks:-0}" -ge 2 ] || fail "the killed JVM's recording has ${chunks:-no} chunks, not 2 or more"
  grep -q '^event jdk.ExecutionSample' "$out/killed.dump" || fail "the killed JVM's recording has no samples"
}

# --- 4. loop=: a recording per window ---
section_loop() {
  { "$java" "-agentpath:$agent=event=cpu,interval=1ms,loop=1s,file=$out/window-%t.jfr" -cp "$classes" \
      jvmkit.test.profiler.LockShares 3.5 "$out/window.truth" >"$out/window.stderr" 2>&1 &
    started $!
    wait $!
    echo $? >"$out/window.rc"; } &
  # Each window's file is read once it is whole, while the run goes on: when the next window's file
  # is there (the agent closes a window's file before it opens the next one's), or the run is over.
  # The names (%t) sort in time order. One window at a time: a run that a busy host stretches has
  # more windows, and would start more readers at once.
  local windows=0 over files
  while :; do
    over=0
    [ -e "$out/window.rc" ] && over=1
    files=()
    for f in "$out"/window-*.jfr; do [ -e "$f" ] && files+=("$f"); done
    if [ "$windows" -lt $((${#files[@]} - 1 + over)) ]; then
      read_by_jdk "${files[$windows]}" "window$((windows + 1))" >/dev/null
      windows=$((windows + 1))
      continue
    fi
    [ "$over" -eq 1 ] && break
    sleep 0.1
  done
  wait
  [ "$(cat "$out/window.rc")" -eq 0 ] || fail "the loop= run failed"
  [ "$windows" -ge 3 ] || fail "loop=1s over 3.5 s wrote $windows recordings"
  echo "loop=1s: $windows recordings, each read by the JDK's tools"
}

sections=(rec dump attached killed loop)
section_loop >"$out/loop.log" 2>&1 &  # the longest first
for s in "${sections[@]:0:4}"; do "section_$s" >"$out/$s.log" 2>&1 & done
wait
for s in "${sections[@]}"; do cat "$out/$s.log"; done
: >"$out/jvm.pids"  # every JVM has ended
[ -s "$out/failures" ] && exit 1
echo PASS
