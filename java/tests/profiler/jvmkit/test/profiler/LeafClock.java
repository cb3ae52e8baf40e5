package jvmkit.test.profiler;

/**
 * Samples inside a native leaf call: spin loops until a deadline, asking the clock through clock,
 * a method C2 inlines into spin. System.nanoTime is a leaf call of compiled code (into libjvm,
 * libc and the vDSO): nearly all of spin's time is inside it, below clock. A profiler that
 * describes the compiled caller of a leaf call by the debug record after the call (the loop's
 * compare, in spin) instead of the call's own loses clock from those stacks.
 *
 * <p>Truth: within spin, every sample is in clock (a few percent in the loop's compare and
 * branch, in spin itself, are the margin of the limit).
 *
 * <p>Usage: LeafClock SECONDS TRUTH_FILE
 */
public final class LeafClock {
  static long sink;

  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    // Warm-up: spin is compiled by C2 with clock inlined before the measured calls.
    for (int i = 0; i < 20_000; i++) sink += spin(System.nanoTime() + 2_000);
    long end = System.nanoTime() + (long) (seconds * 1e9);
    while (System.nanoTime() < end) sink += spin(System.nanoTime() + 1_000_000);
    new Truth().within("jvmkit.test.profiler.LeafClock.spin")
        .includeOther()
        .shares(new String[] {"LeafClock.clock"}, new long[] {1})
        .write(args[1]);
    System.out.println("sink " + sink);
  }

  static long spin(long deadline) {
    long n = 0;
    while (clock() < deadline) n++;
    return n;
  }

  static long clock() {
    return System.nanoTime();
  }
}
