package jvmkit.test.profiler;

/**
 * Allocations of classes that are unloaded soon after: each round defines {@link AllocUnloadable}
 * in a fresh class loader, has it allocate about 8 MB of its own instances, and drops the loader; a
 * GC every few rounds unloads them ({@link UnloadingRounds}). The allocated class must keep its
 * name in the profile (the profiler names it when the allocation is sampled, not when it writes
 * the profile).
 * Usage: AllocUnloading SECONDS TRUTH_FILE
 */
public final class AllocUnloading {
  private AllocUnloading() {}

  public static void main(String[] args) throws Exception {
    UnloadingRounds.run(Double.parseDouble(args[0]), "jvmkit.test.profiler.AllocUnloadable", "allocate", 8L << 20);
    // Nearly all the bytes of a round are instances of the unloaded class, allocated in its method.
    new Truth().within("jvmkit.test.profiler.UnloadingRounds.round").includeOther()
        .shares(new String[] {"jvmkit.test.profiler.AllocUnloadable.allocate"}, new long[] {1})
        .forbid("?")
        .write(args[1]);
  }
}
