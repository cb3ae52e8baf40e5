package jvmkit.test.profiler;

/**
 * Names outside the Basic Multilingual Plane, which JVMTI hands out in modified UTF-8 (each such
 * character as two 3-byte surrogates): a class and a method named with U+1D465 MATHEMATICAL ITALIC
 * SMALL X, run by a thread whose name also has U+1F600 (an emoji) and a NUL-free BMP character.
 * Written with Unicode escapes so that the source is ASCII whatever javac's default encoding.
 * Usage: UnicodeNames seconds
 */
public final class UnicodeNames {
  /** The class Names\uD835\uDC65 ("Names" + U+1D465). */
  static final class Names\uD835\uDC65 {
    static volatile long sink;

    /** The method \uD835\uDC65Loop (U+1D465 + "Loop"): where the time goes. */
    static void \uD835\uDC65Loop(long deadline) {
      long s = 0;
      while (System.nanoTime() < deadline) {
        for (int i = 0; i < 100_000; i++) s += (s ^ i) * 31 + (i >>> 3);
        sink = s;
      }
    }
  }

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2;
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    Thread t = new Thread(() -> Names\uD835\uDC65.\uD835\uDC65Loop(deadline), "worker-\uD83D\uDE00-\uD835\uDC65-\u00E9");
    t.start();
    t.join();
  }
}
