package jvmkit.test.jfr;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Turns a jvmkit recording, read with the JDK's own reader, back into the collapsed stacks the
 * profiler writes for the same run, one file per event (PREFIX.cpu.collapsed, PREFIX.alloc.collapsed,
 * PREFIX.lock.collapsed, ...), so that a test can compare the two outputs line by line:
 *
 * <ul>
 *   <li>frames root first, a Java frame as CLASS.METHOD, a native one as its name; a truncated
 *       stack ends at the root in [truncated];
 *   <li>alloc and lock end in the allocated or locked class ([no blocker] for a park without
 *       one), and count their weights (bytes, ns waited); the other events count samples.
 * </ul>
 *
 * <p>It checks the times on the way: every sample lies within the recording (jdk.ActiveRecording's
 * start to the last chunk's end), and the samples of one thread and event come in the order they
 * were taken. It prints "events=N" and, per problem, a line starting with "error:" (status 1).
 *
 * <p>Usage: JfrCollapse RECORDING PREFIX
 */
public final class JfrCollapse {
  public static void main(String[] args) throws IOException {
    Map<String, Map<String, Long>> byEvent = new TreeMap<>();
    Map<String, Long> lastTime = new HashMap<>();
    long events = 0;
    long earliest = Long.MAX_VALUE;
    long latest = Long.MIN_VALUE;
    long recordingStart = Long.MAX_VALUE;
    int errors = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(Path.of(args[0]))) {
      String type = e.getEventType().getName();
      if (type.equals("jdk.ActiveRecording")) {
        recordingStart = Math.min(recordingStart, e.getLong("recordingStart"));
        continue;
      }
      String event = eventOf(e);
      if (event == null) continue;
      events++;
      long time = nanos(e.getStartTime());
      // A lock event starts when the wait began; the stack was taken when it ended.
      long taken = time + e.getDuration().toNanos();
      earliest = Math.min(earliest, time);
      latest = Math.max(latest, taken);
      RecordedThread thread = e.getThread(e.hasField("sampledThread") ? "sampledThread" : "eventThread");
      String key = event + "/" + (thread == null ? "?" : thread.getOSThreadId());
      Long previous = lastTime.put(key, taken);
      if (previous != null && taken < previous) {
        System.out.println("error: " + key + ": a sample taken at " + taken + " after one taken at " + previous);
        errors++;
      }
      byEvent.computeIfAbsent(event, k -> new TreeMap<>()).merge(stack(e), weight(e), Long::sum);
    }
    if (events > 0 && recordingStart != Long.MAX_VALUE && earliest < recordingStart * 1_000_000L - 1_000_000_000L) {
      System.out.println("error: a sample at " + earliest + " ns, before the recording's start " + recordingStart + " ms");
      errors++;
    }
    for (Map.Entry<String, Map<String, Long>> entry : byEvent.entrySet()) {
      try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Path.of(args[1] + "." + entry.getKey() + ".collapsed")))) {
        for (Map.Entry<String, Long> line : entry.getValue().entrySet()) out.println(line.getKey() + " " + line.getValue());
      }
    }
    System.out.println("events=" + events + " first=" + earliest + " last=" + latest);
    if (errors > 0) System.exit(1);
  }

  private static long nanos(Instant t) {
    return t.getEpochSecond() * 1_000_000_000L + t.getNano();
  }

  private static String eventOf(RecordedEvent e) {
    switch (e.getEventType().getName()) {
      case "jdk.ExecutionSample":
        return "cpu";
      case "profiler.WallClockSample":
        return "wall";
      case "jvmkit.PerfEventSample":
        return e.getString("event");
      case "jdk.ObjectAllocationSample":
        return "alloc";
      case "jdk.JavaMonitorEnter":
      case "jdk.ThreadPark":
        return "lock";
      default:
        return null;
    }
  }

  private static long weight(RecordedEvent e) {
    switch (e.getEventType().getName()) {
      case "jdk.ObjectAllocationSample":
        return e.getLong("weight");
      case "jdk.JavaMonitorEnter":
      case "jdk.ThreadPark":
        return e.getDuration().toNanos();
      default:
        return 1;
    }
  }

  private static String stack(RecordedEvent e) {
    StringBuilder out = new StringBuilder();
    RecordedStackTrace stack = e.getStackTrace();
    if (stack.isTruncated()) out.append("[truncated]");
    List<RecordedFrame> frames = stack.getFrames();
    for (int i = frames.size() - 1; i >= 0; i--) {
      RecordedFrame f = frames.get(i);
      if (out.length() > 0) out.append(';');
      RecordedClass type = f.getMethod().getType();
      String klass = type == null ? "" : type.getName();
      out.append(klass.isEmpty() ? "" : klass + ".").append(f.getMethod().getName());
    }
    String leaf = leafClass(e);
    if (leaf != null) out.append(out.length() > 0 ? ";" : "").append(leaf);
    return out.toString();
  }

  private static String leafClass(RecordedEvent e) {
    RecordedClass c;
    switch (e.getEventType().getName()) {
      case "jdk.ObjectAllocationSample":
        c = e.getClass("objectClass");
        break;
      case "jdk.JavaMonitorEnter":
        c = e.getClass("monitorClass");
        break;
      case "jdk.ThreadPark":
        c = e.getClass("parkedClass");
        return c == null ? "[no blocker]" : c.getName();
      default:
        return null;
    }
    return c == null ? "?" : c.getName();
  }
}
