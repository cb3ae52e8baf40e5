package jvmkit.test.profiler;

/**
 * Fixed CPU ratios between methods: ratioA, ratioB and ratioC do the same work per call and are
 * run for 50%, 30% and 20% of this thread's CPU time. The truth is the CPU time each method really
 * took (measured around each batch of calls), so JIT warm-up does not blur it.
 * Usage: Ratios SECONDS|until=STOP_FILE TRUTH_FILE. SECONDS: of this thread's CPU time, so that a
 * CPU-time sampler takes as many samples on a busy host as on an idle one (the wall time grows
 * instead, up to 20 times SECONDS). until=: runs until STOP_FILE exists, at most 300 s of wall
 * time: for a profiler attached to it, however long that takes on a busy host.
 */
public final class Ratios {
  static long sink;

  public static void main(String[] args) throws Exception {
    java.io.File stopFile = args[0].startsWith("until=") ? new java.io.File(args[0].substring(6)) : null;
    double seconds = stopFile != null ? 300 : Double.parseDouble(args[0]);
    long[] cpu = new long[3];
    long wallEnd = System.nanoTime() + (long) (seconds * (stopFile != null ? 1 : 20) * 1e9);
    long cpuEnd = stopFile != null ? Long.MAX_VALUE : Truth.cpuNanos() + (long) (seconds * 1e9);
    java.util.Random random = new java.util.Random(7);
    while (System.nanoTime() < wallEnd && Truth.cpuNanos() < cpuEnd && (stopFile == null || !stopFile.exists())) {
      // 0.5 to 4.5 ms of CPU per round, split 5:3:2. Random lengths: a workload that repeats with a
      // fixed period would alias with a fixed sampling interval and bias any periodic sampler.
      long slice = 500_000L + random.nextInt(4_000_000);
      cpu[0] += runFor(0, slice * 5 / 10);
      cpu[1] += runFor(1, slice * 3 / 10);
      cpu[2] += runFor(2, slice * 2 / 10);
    }
    new Truth().within("jvmkit.test.profiler.Ratios.runFor")
        .shares(new String[] {"Ratios.ratioA", "Ratios.ratioB", "Ratios.ratioC"}, cpu)
        .write(args[1]);
    System.out.println("sink " + sink);
  }

  /** Runs method WHICH until this thread used NANOS of CPU; returns the CPU time spent in it. */
  static long runFor(int which, long nanos) {
    long inside = 0;
    while (inside < nanos) {
      long t0 = Truth.cpuNanos();
      switch (which) {
        case 0: sink += ratioA(sink); break;
        case 1: sink += ratioB(sink); break;
        default: sink += ratioC(sink); break;
      }
      inside += Truth.cpuNanos() - t0;
    }
    return inside;
  }

  static long ratioA(long x) { return work(x); }
  static long ratioB(long x) { return work(x); }
  static long ratioC(long x) { return work(x); }

  /** About 50 us of integer work that cannot be folded away. */
  static long work(long x) {
    for (int i = 0; i < 20_000; i++) {
      x = x * 6364136223846793005L + 1442695040888963407L;
      x ^= x >>> 29;
    }
    return x;
  }
}
