package jvmkit.test.profiler;

/**
 * Threads with different shares: share-1, share-2 and share-3 burn 1, 2 and 3 units of CPU time
 * at the same time (more threads than cores, so they compete). The truth is each thread's CPU time
 * as the JVM measures it; with event=cpu and threads, samples per thread must follow it.
 * Usage: ThreadShares UNIT_MILLIS TRUTH_FILE
 */
public final class ThreadShares {
  static volatile long sink;

  public static void main(String[] args) throws Exception {
    long unit = Long.parseLong(args[0]) * 1_000_000L;
    int n = 3;
    Thread[] threads = new Thread[n];
    long[] cpu = new long[n];
    String[] names = new String[n];
    for (int i = 0; i < n; i++) {
      final int k = i;
      names[i] = "[share-" + (i + 1) + " ";
      threads[i] = new Thread(() -> {
        long x = k;
        long target = unit * (k + 1);
        long t0 = Truth.cpuNanos();
        while (Truth.cpuNanos() - t0 < target) x = Ratios.work(x);
        cpu[k] = Truth.cpuNanos() - t0;
        sink += x;
      }, "share-" + (i + 1));
    }
    for (Thread t : threads) t.start();
    for (Thread t : threads) t.join();
    new Truth().shares(names, cpu).write(args[1]);
  }
}
