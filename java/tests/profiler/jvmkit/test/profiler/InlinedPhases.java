package jvmkit.test.profiler;

/**
 * Sibling methods inlined into one compiled loop, each run to a deadline: every round of outer
 * runs midA (which calls smallA), then smallB, then smallC, each for its share of a 2.35 ms round
 * (System.nanoTime deadlines, checked after every block of work inside the small methods). C2
 * inlines all of them into outer, so the code of one method directly follows the other's, and a
 * profiler that describes a PC by the wrong debug record charges one method's time to the next.
 * The nanoTime call at each check is a leaf call into the VM (and the vDSO): samples that land
 * there must be charged to the small method that made the call.
 *
 * <p>The truth is the phases' shares of a round, as given. The rounds lie on a fixed grid of time
 * (a round does not start when the last one ended): a thread descheduled now and then, at times
 * that know nothing of the grid, loses time from each phase in proportion to its length. Were a
 * round to start afresh when the thread got the CPU back, every time slice would start with
 * smallA, and samples taken at the kernel's ticks would fall at fixed points of the round
 * (measured on a loaded 2-core host: 43 % instead of 60 % for smallA). (Counting the
 * blocks would not do: C2 schedules the identical blocks differently in each method, and their
 * costs differ by up to half; measuring CPU time between the phases would put a call between
 * them, and smallB's code would no longer follow smallA's.)
 *
 * <p>Usage: InlinedPhases SECONDS TRUTH_FILE [PERCENT_A PERCENT_B [PERCENT_C]] (default 60 40 0)
 */
public final class InlinedPhases {
  // Shares with no common measure with the kernel's tick (1 or 4 ms), at which CPU-time timers
  // fire: over a run, the samples fall evenly over the points of a round.
  static final long ROUND_NS = 2_345_679;
  static long sink;

  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    long[] percent = {60, 40, 0};
    for (int i = 2; i < args.length && i < 5; i++) percent[i - 2] = Long.parseLong(args[i]);
    long sliceA = ROUND_NS * percent[0] / 100;
    long sliceB = ROUND_NS * percent[1] / 100;
    long sliceC = ROUND_NS * percent[2] / 100;
    // Warm-up: outer is called often enough that C2 compiles it with the small methods inlined
    // (a round at a time, it would be called too rarely).
    long x = 1;
    long warm = 3_000;  // ns: a few dozen blocks a phase, so C2 sees the loops iterate
    for (int i = 0; i < 30_000; i++) x = outer(x, 0, 3 * warm, warm, warm, warm);
    long origin = System.nanoTime();
    long end = origin + (long) (seconds * 1e9);
    while (System.nanoTime() < end) x = outer(x, origin, ROUND_NS, sliceA, sliceB, sliceC);
    sink = x;
    String[] names = {"InlinedPhases.smallA", "InlinedPhases.smallB", "InlinedPhases.smallC"};
    int n = percent[2] > 0 ? 3 : 2;
    new Truth().within("jvmkit.test.profiler.InlinedPhases.outer")
        .shares(java.util.Arrays.copyOf(names, n), java.util.Arrays.copyOf(percent, n))
        .write(args[1]);
    System.out.println("sink " + sink);
  }

  /** One round of the grid that starts at ORIGIN: the phases of the round it is now in. */
  static long outer(long x, long origin, long round, long sliceA, long sliceB, long sliceC) {
    long now = System.nanoTime();
    long start = now - Math.floorMod(now - origin, round);
    x = midA(x, start + sliceA);
    x = smallB(x, start + sliceA + sliceB);
    if (sliceC > 0) x = smallC(x, start + sliceA + sliceB + sliceC);
    return x;
  }

  static long midA(long x, long deadline) {
    return smallA(x ^ 1, deadline);
  }

  // smallA, smallB and smallC are copies on purpose: each phase must be a method of its own, and a
  // shared helper would be inlined into all three and become the sampled leaf instead of them.
  static long smallA(long x, long deadline) {
    long n = 0;
    do {
      for (int i = 0; i < 24; i++) {
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >>> 29;
      }
      n++;
    } while (System.nanoTime() < deadline);
    return x ^ n;
  }

  static long smallB(long x, long deadline) {
    long n = 0;
    do {
      for (int i = 0; i < 24; i++) {
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >>> 29;
      }
      n++;
    } while (System.nanoTime() < deadline);
    return x ^ n;
  }

  static long smallC(long x, long deadline) {
    long n = 0;
    do {
      for (int i = 0; i < 24; i++) {
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >>> 29;
      }
      n++;
    } while (System.nanoTime() < deadline);
    return x ^ n;
  }
}
