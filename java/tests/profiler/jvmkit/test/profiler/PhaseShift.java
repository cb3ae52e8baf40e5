package jvmkit.test.profiler;

/**
 * A workload that changes phase at a known moment: phaseOne burns CPU for the first FIRST seconds
 * of its run, then phaseTwo for SECOND seconds, on the main thread. Times are CPU time of the main
 * thread's loop as measured on the wall clock from the start, so a range of the recording before
 * FIRST holds phaseOne only and a range after it phaseTwo only (give or take the sample at the
 * switch). It prints "ready" when it starts its first phase (a test may attach to it then), and
 * "switch at <epoch ms>" when it switches, so that a test knows the moment.
 *
 * <p>Usage: PhaseShift FIRST SECOND
 */
public final class PhaseShift {
  static long sink;

  public static void main(String[] args) {
    final long first = (long) (Double.parseDouble(args[0]) * 1e9);
    final long second = (long) (Double.parseDouble(args[1]) * 1e9);
    System.out.println("ready");
    System.out.flush();
    final long start = System.nanoTime();
    while (System.nanoTime() - start < first) sink += phaseOne(sink);
    System.out.println("switch at " + System.currentTimeMillis());
    final long switched = System.nanoTime();
    while (System.nanoTime() - switched < second) sink += phaseTwo(sink);
    System.out.println("done " + sink);
  }

  static long phaseOne(long seed) {
    long x = seed;
    for (int i = 0; i < 20_000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
    return x & 1;
  }

  static long phaseTwo(long seed) {
    double x = seed & 0xff;
    for (int i = 0; i < 5_000; i++) x = Math.sqrt(x + i);
    return (long) x & 1;
  }
}
