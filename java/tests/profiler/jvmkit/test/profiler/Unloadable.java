package jvmkit.test.profiler;

/** Loaded again and again by {@link Unloading}, each time by a new class loader, then unloaded. */
public final class Unloadable {
  private Unloadable() {}

  /**
   * Burns MILLIS of this thread's CPU time (not of wall time: next to busy processes the round's
   * fixed work would otherwise outweigh it).
   */
  public static long spin(long millis) {
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    long end = threads.getCurrentThreadCpuTime() + millis * 1_000_000L;
    long x = 1;
    // Self-contained: in its own loader this class is in another runtime package than the others.
    while (threads.getCurrentThreadCpuTime() < end) {
      for (int i = 0; i < 20_000; i++) {
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >>> 29;
      }
    }
    return x;
  }
}
