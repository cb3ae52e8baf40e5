package jvmkit.test.profiler;

/**
 * Sampling rate of event=cpu: one thread burns SECONDS of CPU; with interval INTERVAL_NS it must
 * get CPU/INTERVAL samples (within the tolerance), which needs high-resolution timers at 1 ms.
 * Usage: SampleRate SECONDS INTERVAL_NS TRUTH_FILE
 */
public final class SampleRate {
  static volatile long sink;

  public static void main(String[] args) throws Exception {
    long cpuTarget = (long) (Double.parseDouble(args[0]) * 1e9);
    long interval = Long.parseLong(args[1]);
    long[] used = new long[1];
    Thread t = new Thread(() -> {
      long x = 1;
      long t0 = Truth.cpuNanos();
      while (Truth.cpuNanos() - t0 < cpuTarget) x = Ratios.work(x);
      used[0] = Truth.cpuNanos() - t0;
      sink = x;
    }, "rate-worker");
    t.start();
    t.join();
    new Truth().count("[rate-worker ", used[0] / interval, 0.2).write(args[2]);
  }
}
