package jvmkit.test.profiler;

import java.lang.management.ManagementFactory;

/**
 * Fixed shares of allocated BYTES between three methods that allocate objects of very different
 * sizes: smallObjects (32-byte arrays), mediumArrays (4 KB arrays) and hugeArrays (4 MB arrays,
 * humongous objects for G1 with the heap this test gives it), for 50%, 30% and 20% of the bytes.
 * The truth is the bytes each method really allocated, measured around each batch with the
 * thread's allocation counter, so a sampler that weighed every sample alike (ignoring the size of
 * the object it stands for) would be far off: a huge array is sampled about once, and stands for
 * 4 MB, a small one for the mean sampling interval.
 * Usage: AllocShares SECONDS TRUTH_FILE
 */
public final class AllocShares {
  static final Object[] SINK = new Object[1024];
  static int next;

  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    long[] bytes = new long[3];
    java.util.Random random = new java.util.Random(11);
    long end = System.nanoTime() + (long) (seconds * 1e9);
    while (System.nanoTime() < end) {
      // 8 to 40 MB per round, split 5:3:2 (random lengths: nothing periodic for the sampler).
      long round = (8L << 20) + random.nextInt(32 << 20);
      bytes[0] += runFor(0, round * 5 / 10);
      bytes[1] += runFor(1, round * 3 / 10);
      bytes[2] += runFor(2, round * 2 / 10);
    }
    new Truth().within("jvmkit.test.profiler.AllocShares.runFor")
        .shares(new String[] {"AllocShares.smallObjects", "AllocShares.mediumArrays", "AllocShares.hugeArrays"}, bytes)
        .write(args[1]);
    System.out.printf("allocated: small %d MB, medium %d MB, huge %d MB%n", bytes[0] >> 20, bytes[1] >> 20,
        bytes[2] >> 20);
  }

  static long allocated() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
  }

  /** Runs method WHICH until this thread allocated BYTES in it; returns the bytes it allocated. */
  static long runFor(int which, long bytes) {
    long inside = 0;
    while (inside < bytes) {
      long before = allocated();
      switch (which) {
        case 0: smallObjects(); break;
        case 1: mediumArrays(); break;
        default: hugeArrays(); break;
      }
      inside += allocated() - before;
    }
    return inside;
  }

  // Each call allocates about 256 KB, except hugeArrays (one 4 MB array). The arrays are kept
  // (SINK) so that the JIT cannot remove the allocations.
  static void smallObjects() {
    for (int i = 0; i < 8192; i++) keep(new long[2]);
  }

  static void mediumArrays() {
    for (int i = 0; i < 64; i++) keep(new int[1020]);
  }

  static void hugeArrays() {
    keep(new byte[4 << 20]);
  }

  static void keep(Object o) {
    SINK[next++ & (SINK.length - 1)] = o;
  }
}
