package jvmkit.test.jfr;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import jdk.jfr.ValueDescriptor;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedObject;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Reads a recording with the JDK's own reader (jdk.jfr.consumer.RecordingFile) and prints every
 * event in one canonical text form, so that a test can compare it with what the writer meant to
 * write:
 *
 * <pre>
 * event TYPE start=EPOCH_NS duration=NS thread=OS_TID/JAVA_TID/JAVA_NAME/OS_NAME FIELD=VALUE...
 *   truncated=BOOL
 *   frame CLASS.METHODDESCRIPTOR line=N bci=N type=TYPE
 * events=N
 * </pre>
 *
 * Any error of the reader ends the program with status 1 and its message.
 */
public final class JfrDump {
  public static void main(String[] args) throws IOException {
    long events = 0;
    StringBuilder out = new StringBuilder();
    try (RecordingFile file = new RecordingFile(Path.of(args[0]))) {
      while (file.hasMoreEvents()) {
        print(file.readEvent(), out);
        events++;
        if (out.length() > 1 << 16) {
          System.out.print(out);
          out.setLength(0);
        }
      }
    } catch (IOException | RuntimeException e) {
      System.out.print(out);
      System.out.println("error: " + e);
      System.exit(1);
    }
    out.append("events=").append(events).append('\n');
    System.out.print(out);
  }

  private static long epochNanos(Instant t) {
    return t.getEpochSecond() * 1_000_000_000L + t.getNano();
  }

  private static void print(RecordedEvent e, StringBuilder out) {
    out.append("event ").append(e.getEventType().getName());
    out.append(" start=").append(epochNanos(e.getStartTime()));
    out.append(" duration=").append(e.getDuration().toNanos());
    RecordedStackTrace stack = null;
    for (ValueDescriptor field : e.getFields()) {
      String name = field.getName();
      if (name.equals("startTime") || name.equals("duration")) continue;
      Object value = e.getValue(name);
      if (name.equals("stackTrace")) {
        stack = (RecordedStackTrace) value;  // printed below, null when the event has none
        continue;
      }
      out.append(' ').append(name).append('=').append(text(value));
    }
    out.append('\n');
    if (stack != null) {
      out.append("  truncated=").append(stack.isTruncated()).append('\n');
      for (RecordedFrame f : stack.getFrames()) {
        RecordedMethod m = f.getMethod();
        RecordedClass type = m.getType();
        out.append("  frame ")
            .append(type == null ? "" : type.getName() + ".")
            .append(m.getName())
            .append(m.getDescriptor())
            .append(" line=")
            .append(f.getLineNumber())
            .append(" bci=")
            .append(f.getBytecodeIndex())
            .append(" type=")
            .append(f.getType())
            .append('\n');
      }
    }
  }

  private static String text(Object value) {
    if (value == null) return "null";
    if (value instanceof RecordedThread t)
      return t.getOSThreadId() + "/" + t.getJavaThreadId() + "/" + t.getJavaName() + "/" + t.getOSName();
    if (value instanceof RecordedClass c) return c.getName();
    if (value instanceof RecordedObject o) return o.toString().replace('\n', ' ');
    return value.toString();
  }
}
