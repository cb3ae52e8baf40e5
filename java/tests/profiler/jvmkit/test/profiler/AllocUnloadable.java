package jvmkit.test.profiler;

/**
 * Loaded again and again by {@link AllocUnloading}, each time by a new class loader, then unloaded:
 * it allocates instances of itself, so the allocated class of each sample is a class that is gone
 * when the profile is written.
 */
public final class AllocUnloadable {
  private static final Object[] KEPT = new Object[256];
  private final long a;
  private final long b;

  private AllocUnloadable(long a, long b) {
    this.a = a;
    this.b = b;
  }

  /** Allocates about BYTES in instances of this class (kept, so the JIT cannot remove them). */
  public static long allocate(long bytes) {
    long sum = 0;
    for (long i = 0; i < bytes / 32; i++) {
      AllocUnloadable o = new AllocUnloadable(i, sum);
      KEPT[(int) (i & (KEPT.length - 1))] = o;
      sum += o.a ^ o.b;
    }
    return sum;
  }
}
