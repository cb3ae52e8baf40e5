package jvmkit.test.profiler;

/**
 * Recursion 1,000 frames deep; at the bottom, deepA and deepB run for 60% and 40% of the CPU
 * time (measured). Checks that deep stacks are complete (at least 1,000 frames, root included)
 * and their leaves attributed right.
 * Usage: DeepRecursion SECONDS TRUTH_FILE [DEPTH]
 */
public final class DeepRecursion {
  static int depth = 1000;
  static long sink;
  static final long[] CPU = new long[2];

  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    if (args.length > 2) depth = Integer.parseInt(args[2]);
    long end = System.nanoTime() + (long) (seconds * 1e9);
    while (System.nanoTime() < end) recurse(depth);
    new Truth().within("jvmkit.test.profiler.DeepRecursion.bottom")
        .shares(new String[] {"DeepRecursion.deepA", "DeepRecursion.deepB"}, CPU)
        .minDepth(depth, 0.9)
        .write(args[1]);
    System.out.println("sink " + sink);
  }

  static void recurse(int depth) {
    if (depth > 0) {
      recurse(depth - 1);
      sink++; // not a tail call
    } else {
      bottom();
    }
  }

  static final java.util.Random RANDOM = new java.util.Random(7);

  static void bottom() {
    for (int round = 0; round < 20; round++) {
      // Rounds of random length (0.5 to 2.5 ms): a workload that repeats with a fixed period would
      // alias with a fixed sampling interval and bias any periodic sampler.
      long slice = 500_000 + RANDOM.nextInt(2_000_000);
      long t0 = Truth.cpuNanos();
      long inside = 0;
      while (inside < slice * 6 / 10) {
        sink += deepA(sink);
        inside = Truth.cpuNanos() - t0;
      }
      CPU[0] += inside;
      t0 = Truth.cpuNanos();
      inside = 0;
      while (inside < slice * 4 / 10) {
        sink += deepB(sink);
        inside = Truth.cpuNanos() - t0;
      }
      CPU[1] += inside;
    }
  }

  static long deepA(long x) { return Ratios.work(x); }
  static long deepB(long x) { return Ratios.work(x); }
}
