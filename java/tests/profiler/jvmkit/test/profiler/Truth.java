package jvmkit.test.profiler;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * What a workload knows to be true about itself, written for {@link CheckProfile}: lines of
 * "share NAME FRACTION", "within FRAME", "other", "min_depth FRAMES FRACTION", "count FRAME N TOLERANCE", "forbid TEXT".
 */
final class Truth {
  private final List<String> lines = new ArrayList<>();
  static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  static long cpuNanos() {
    return THREADS.getCurrentThreadCpuTime();
  }

  Truth within(String frame) {
    lines.add("within " + frame);
    return this;
  }

  Truth includeOther() {
    lines.add("other");
    return this;
  }

  /** Shares given as raw weights (e.g. CPU nanoseconds); normalised here. */
  Truth shares(String[] names, long[] weights) {
    long sum = 0;
    for (long w : weights) sum += w;
    for (int i = 0; i < names.length; i++) {
      lines.add("share " + names[i] + " " + (sum > 0 ? (double) weights[i] / sum : 0));
    }
    return this;
  }

  /** No frame of the whole profile may contain TEXT (e.g. an unresolved name). */
  Truth forbid(String text) {
    lines.add("forbid " + text);
    return this;
  }

  Truth minDepth(int frames, double fraction) {
    lines.add("min_depth " + frames + " " + fraction);
    return this;
  }

  Truth count(String frame, long expected, double tolerance) {
    lines.add("count " + frame + " " + expected + " " + tolerance);
    return this;
  }

  void write(String path) throws IOException {
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Paths.get(path)))) {
      for (String l : lines) out.println(l);
    }
    System.out.println("truth: " + String.join("; ", lines));
  }
}
