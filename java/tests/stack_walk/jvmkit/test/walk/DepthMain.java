package jvmkit.test.walk;

/**
 * Benchmark load with a fixed stack depth: N threads ("worker-i") recurse DEPTH frames, then run a
 * CPU loop there, so every sample sees about DEPTH Java frames. Usage: DepthMain seconds threads depth
 */
public final class DepthMain {
  static volatile long sink;

  static long down(int depth, long deadline) {
    if (depth > 1) {
      return down(depth - 1, deadline) + 1;
    }
    long s = 0;
    while (System.nanoTime() < deadline) {
      for (int i = 0; i < 100_000; i++) {
        s += (s >>> 3) ^ (i * 13L);
      }
    }
    return s;
  }

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 10;
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    int depth = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    Thread[] workers = new Thread[threads];
    for (int i = 0; i < threads; i++) {
      workers[i] = new Thread(null, () -> sink += down(depth, deadline), "worker-" + i, 64L << 20);
      workers[i].start();
    }
    Work.joinAll(workers);
  }
}
