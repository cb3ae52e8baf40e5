package jvmkit.test.cli;

/**
 * A JVM for the jvmkit tool to attach to: prints "ready" once it runs, then spends nearly all of
 * its CPU time in {@link #spin} until the given seconds have passed, so that any profile of it,
 * however short, names that method.
 *
 * <p>Usage: ProfileTarget seconds [stop_file]: with STOP_FILE it also ends once that file exists
 * (a test that wants the JVM to exit while profiled says when).
 */
public final class ProfileTarget {
  static volatile long sink = 1;

  public static void main(String[] args) {
    long seconds = args.length > 0 ? Long.parseLong(args[0]) : 60;
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    java.io.File stopFile = args.length > 1 ? new java.io.File(args[1]) : null;
    System.out.println("ready");
    System.out.flush();
    while (System.nanoTime() < deadline && (stopFile == null || !stopFile.exists())) {
      sink = spin(sink);
    }
  }

  /** A few milliseconds of xorshift steps, each depending on the last (nothing to optimize away). */
  static long spin(long seed) {
    long x = seed | 1;
    for (int i = 0; i < 2_000_000; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
    }
    return x;
  }
}
