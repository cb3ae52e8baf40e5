package jvmkit.test.walk;

/**
 * Stacks of known depth for the depth-limit tests: for each DEPTH in turn, the main thread calls
 * descend until it has exactly DEPTH Java frames (main, DEPTH - 2 frames of descend, spin) and runs a
 * CPU loop in spin for SECONDS. A trace taken there holds DEPTH frames, the last one main, unless
 * the depth limit cut it. Usage: TruncationMain seconds depth...
 */
public final class TruncationMain {
  static volatile long sink;

  static long descend(int frames, long deadline) {
    if (frames > 1) {
      return descend(frames - 1, deadline) + 1;
    }
    return spin(deadline);
  }

  // No calls but System.nanoTime, and that only every 100,000 iterations: samples land in this frame.
  static long spin(long deadline) {
    long s = 0;
    while (System.nanoTime() < deadline) {
      for (int i = 0; i < 100_000; i++) {
        s += (s >>> 3) ^ (i * 13L);
      }
    }
    return s;
  }

  public static void main(String[] args) {
    double seconds = Double.parseDouble(args[0]);
    for (int i = 1; i < args.length; i++) {
      int depth = Integer.parseInt(args[i]);
      if (depth < 3) {
        throw new IllegalArgumentException("a depth is at least 3 frames (main, descend, spin): " + depth);
      }
      long deadline = System.nanoTime() + (long) (seconds * 1e9);
      sink += descend(depth - 2, deadline);
    }
  }
}
