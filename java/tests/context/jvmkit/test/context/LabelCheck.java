package jvmkit.test.context;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Checks LabelShares' profile: the samples per endpoint label, in one of the profiler's outputs,
 * against the truth (50/30/20), by total variation distance; and, in JFR, that /a's samples carry
 * its span's ids (in their jvmkit.SampleContext events) and the others none.
 *
 * <p>Usage: LabelCheck collapsed|pprof|jfr FILE MIN_LABELLED MAX_TVD. Exits 1 on a failed check.
 */
public final class LabelCheck {
  private static final Map<String, Double> TRUTH = Map.of("/a", 0.5, "/b", 0.3, "/c", 0.2);

  private LabelCheck() {}

  public static void main(String[] args) throws IOException {
    String format = args[0];
    Path file = Path.of(args[1]);
    long minLabelled = Long.parseLong(args[2]);
    double maxTvd = Double.parseDouble(args[3]);
    Map<String, Long> counts = new TreeMap<>();
    List<String> failures = new ArrayList<>();
    switch (format) {
      case "collapsed":
        collapsed(file, counts);
        break;
      case "pprof":
        pprof(file, counts);
        break;
      case "jfr":
        jfr(file, counts, failures);
        break;
      default:
        throw new IllegalArgumentException(format);
    }
    long labelled = 0;
    for (String endpoint : TRUTH.keySet()) {
      labelled += counts.getOrDefault(endpoint, 0L);
    }
    double tvd = 0;
    for (Map.Entry<String, Double> t : TRUTH.entrySet()) {
      double share = labelled == 0 ? 0 : counts.getOrDefault(t.getKey(), 0L) / (double) labelled;
      tvd += Math.abs(share - t.getValue()) / 2;
    }
    for (String endpoint : counts.keySet()) {
      if (!endpoint.isEmpty() && !TRUTH.containsKey(endpoint)) {
        failures.add("a label no request had: endpoint=" + endpoint);
      }
    }
    System.out.printf("%s: samples by endpoint %s (\"\" = none), tvd %.4f%n", format, counts, tvd);
    if (labelled < minLabelled) {
      failures.add("only " + labelled + " labelled samples, want >= " + minLabelled);
    }
    if (tvd > maxTvd) {
      failures.add(String.format("tvd %.4f > %.4f", tvd, maxTvd));
    }
    for (String f : failures) {
      System.out.println("FAIL: " + f);
    }
    System.exit(failures.isEmpty() ? 0 : 1);
  }

  // "[endpoint=/a];Thread.run;...;LabelShares.work 17": the root frame is the label set.
  private static void collapsed(Path file, Map<String, Long> counts) throws IOException {
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      long count = Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
      String root = line.substring(0, Math.max(0, line.indexOf(';')));
      String endpoint = root.startsWith("[endpoint=") && root.endsWith("]") ? root.substring(10, root.length() - 1) : "";
      counts.merge(endpoint, count, Long::sum);
    }
  }

  // profile.proto: Sample (2) {value (2), label (3) {key (1), str (2)}}, string_table (6).
  private static void pprof(Path file, Map<String, Long> counts) throws IOException {
    byte[] bytes;
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      bytes = out.toByteArray();
    }
    List<String> strings = new ArrayList<>();
    List<long[]> samples = new ArrayList<>();  // count, endpoint's string index (-1: none)
    Proto p = new Proto(bytes, 0, bytes.length);
    long endpointKey = -1;
    while (p.more()) {
      int tag = (int) p.varint();
      if (tag >>> 3 == 6 && (tag & 7) == 2) {
        int n = (int) p.varint();
        strings.add(new String(bytes, p.at, n, StandardCharsets.UTF_8));
        p.at += n;
      } else if (tag >>> 3 == 2 && (tag & 7) == 2) {
        int n = (int) p.varint();
        samples.add(sample(new Proto(bytes, p.at, p.at + n)));
        p.at += n;
      } else {
        p.skip(tag & 7);
      }
    }
    endpointKey = strings.indexOf("endpoint");
    for (long[] s : samples) {
      // s: count, then pairs (key, str)
      String endpoint = "";
      for (int i = 1; i + 1 < s.length; i += 2) {
        if (s[i] == endpointKey) {
          endpoint = strings.get((int) s[i + 1]);
        }
      }
      counts.merge(endpoint, s[0], Long::sum);
    }
  }

  private static long[] sample(Proto p) {
    List<Long> out = new ArrayList<>();
    out.add(0L);
    boolean countSeen = false;
    while (p.more()) {
      int tag = (int) p.varint();
      int field = tag >>> 3;
      if (field == 2 && (tag & 7) == 2) {
        int n = (int) p.varint();
        int end = p.at + n;
        if (!countSeen) {
          out.set(0, p.varint());  // the first value: the sample count
          countSeen = true;
        }
        p.at = end;
      } else if (field == 3 && (tag & 7) == 2) {
        int n = (int) p.varint();
        int end = p.at + n;
        long key = 0;
        long str = 0;
        while (p.at < end) {
          int t = (int) p.varint();
          if (t >>> 3 == 1) {
            key = p.varint();
          } else if (t >>> 3 == 2) {
            str = p.varint();
          } else {
            p.skip(t & 7);
          }
        }
        out.add(key);
        out.add(str);
      } else {
        p.skip(tag & 7);
      }
    }
    long[] a = new long[out.size()];
    for (int i = 0; i < a.length; i++) {
      a[i] = out.get(i);
    }
    return a;
  }

  private static void jfr(Path file, Map<String, Long> counts, List<String> failures) throws IOException {
    long aWithSpan = 0;
    long aTotal = 0;
    long othersWithSpan = 0;
    // A sample's context is the jvmkit.SampleContext event of its type, thread and time (right
    // after it); a sample without one had no context.
    Map<String, RecordedEvent> contexts = new HashMap<>();
    List<RecordedEvent> samples = new ArrayList<>();
    for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
      String type = e.getEventType().getName();
      if (type.equals("jvmkit.SampleContext")) {
        contexts.put(sampleKey(e.getString("sampleType"), e.getThread("eventThread"), e), e);
      } else if (type.equals("jdk.ExecutionSample")) {
        samples.add(e);
      }
    }
    for (RecordedEvent e : samples) {
      RecordedEvent context = contexts.get(sampleKey("jdk.ExecutionSample", e.getThread("sampledThread"), e));
      String labels = context == null ? null : context.getString("contextLabels");
      String endpoint = labels != null && labels.startsWith("endpoint=") ? labels.substring(9) : "";
      counts.merge(endpoint, 1L, Long::sum);
      String trace = context == null ? null : context.getString("traceId");
      String span = context == null ? null : context.getString("spanId");
      if (endpoint.equals("/a")) {
        aTotal++;
        if (LabelShares.TRACE_ID.equals(trace) && LabelShares.SPAN_ID.equals(span)) {
          aWithSpan++;
        }
      } else if (trace != null || span != null) {
        othersWithSpan++;
      }
    }
    System.out.printf("jfr: /a samples with the span's ids: %d of %d; others with a span: %d%n", aWithSpan, aTotal,
        othersWithSpan);
    if (aTotal == 0 || aWithSpan < 0.95 * aTotal) {
      failures.add("/a's samples lack their span's ids");
    }
    if (othersWithSpan > 0) {
      failures.add(othersWithSpan + " samples outside the span carry span ids");
    }
  }

  private static String sampleKey(String sampleType, RecordedThread thread, RecordedEvent e) {
    return sampleType + "/" + (thread == null ? "-" : thread.getOSThreadId() + "/" + thread.getJavaThreadId()) + "/"
        + e.getStartTime();
  }

  /** A cursor over protobuf bytes. */
  private static final class Proto {
    private final byte[] b;
    int at;
    private final int end;

    Proto(byte[] b, int at, int end) {
      this.b = b;
      this.at = at;
      this.end = end;
    }

    boolean more() {
      return at < end;
    }

    long varint() {
      long v = 0;
      for (int shift = 0; ; shift += 7) {
        byte x = b[at++];
        v |= (long) (x & 0x7f) << shift;
        if (x >= 0) {
          return v;
        }
      }
    }

    void skip(int wireType) {
      switch (wireType) {
        case 0:
          varint();
          break;
        case 1:
          at += 8;
          break;
        case 2:
          int n = (int) varint();
          at += n;
          break;
        case 5:
          at += 4;
          break;
        default:
          throw new IllegalStateException("wire type " + wireType);
      }
    }
  }
}
