package jvmkit.test.profiler;

/** Loaded again and again by {@link Unloading}, each time by a new class loader, then unloaded. */
public final class Unloadable {
  private Unloadable() {}

  /** Burns about MILLIS of CPU. */
  public static long spin(long millis) {
    long end = System.nanoTime() + millis * 1_000_000L;
    long x = 1;
    // Self-contained: in its own loader this class is in another runtime package than the others.
    while (System.nanoTime() < end) {
      for (int i = 0; i < 20_000; i++) {
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >>> 29;
      }
    }
    return x;
  }
}
