package jvmkit.test.profiler;

/**
 * Inlined methods: inlinedA and inlinedB are small identical methods that C2 inlines into
 * outer; outer calls inlinedA 7 times and inlinedB 3 times per round, each call depending on the
 * previous one, so their true shares are 0.7 and 0.3. A profiler that does not resolve inlined
 * frames (or attributes them without DebugNonSafepoints) gets them wrong.
 * Usage: Inlining SECONDS TRUTH_FILE
 */
public final class Inlining {
  static long sink;

  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    long end = System.nanoTime() + (long) (seconds * 1e9);
    long x = 1;
    while (System.nanoTime() < end) {
      for (int i = 0; i < 1000; i++) x = outer(x);
    }
    sink = x;
    new Truth().within("jvmkit.test.profiler.Inlining.outer")
        .shares(new String[] {"Inlining.inlinedA", "Inlining.inlinedB"}, new long[] {7, 3})
        .write(args[1]);
    System.out.println("sink " + sink);
  }

  static long outer(long x) {
    x = inlinedA(x);
    x = inlinedA(x);
    x = inlinedA(x);
    x = inlinedA(x);
    x = inlinedA(x);
    x = inlinedA(x);
    x = inlinedA(x);
    x = inlinedB(x);
    x = inlinedB(x);
    x = inlinedB(x);
    return x;
  }

  static long inlinedA(long x) {
    for (int i = 0; i < 200; i++) {
      x = x * 6364136223846793005L + 1442695040888963407L;
      x ^= x >>> 31;
    }
    return x;
  }

  static long inlinedB(long x) {
    for (int i = 0; i < 200; i++) {
      x = x * 6364136223846793005L + 1442695040888963407L;
      x ^= x >>> 31;
    }
    return x;
  }
}
