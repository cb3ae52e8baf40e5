import org.jvmkit.JvmkitContext;

/**
 * The cost of entering and leaving a JvmkitContext scope, in ns per enter+leave pair: one label,
 * two nested labels (two pairs), and a span (withSpan from hex ids). Each case is warmed up,
 * then timed in ROUNDS rounds of ITERATIONS pairs; the median and minimum of the rounds are
 * printed. The loop body adds the loop index to a field, so that the scopes are not the only work
 * and the JIT cannot drop the loop; "empty" times that loop alone, and is subtracted.
 *
 * <p>Usage: java [-agentpath:libjvmkit_prof.so=...] ContextScopeBench [ITERATIONS] [ROUNDS]
 */
public final class ContextScopeBench {
  static long sink;
  static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String SPAN = "00f067aa0ba902b7";

  private ContextScopeBench() {}

  interface Case {
    long run(int n);
  }

  static long empty(int n) {
    long s = 0;
    for (int i = 0; i < n; i++) {
      s += i;
    }
    return s;
  }

  @SuppressWarnings("try")
  static long one(int n) {
    long s = 0;
    for (int i = 0; i < n; i++) {
      try (JvmkitContext.Scope a = JvmkitContext.with("endpoint", "/checkout")) {
        s += i;
      }
    }
    return s;
  }

  @SuppressWarnings("try")
  static long nested(int n) {
    long s = 0;
    for (int i = 0; i < n; i++) {
      try (JvmkitContext.Scope a = JvmkitContext.with("endpoint", "/checkout")) {
        try (JvmkitContext.Scope b = JvmkitContext.with("tenant", "acme")) {
          s += i;
        }
      }
    }
    return s;
  }

  @SuppressWarnings("try")
  static long span(int n) {
    long s = 0;
    for (int i = 0; i < n; i++) {
      try (JvmkitContext.Scope a = JvmkitContext.withSpan(TRACE, SPAN)) {
        s += i;
      }
    }
    return s;
  }

  static double[] time(Case c, int iterations, int rounds) {
    for (int w = 0; w < 20; w++) {
      sink += c.run(iterations / 10);
    }
    double[] ns = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      long t0 = System.nanoTime();
      sink += c.run(iterations);
      ns[r] = (System.nanoTime() - t0) / (double) iterations;
    }
    java.util.Arrays.sort(ns);
    return ns;
  }

  public static void main(String[] args) {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 5_000_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 11;
    System.out.printf("agent active: %b, java %s, %d rounds of %d%n", JvmkitContext.isActive(),
        System.getProperty("java.version"), rounds, iterations);
    double[] base = time(ContextScopeBench::empty, iterations, rounds);
    String[] names = {"one label", "two nested labels", "withSpan(hex, hex)"};
    Case[] cases = {ContextScopeBench::one, ContextScopeBench::nested, ContextScopeBench::span};
    int[] pairs = {1, 2, 1};
    System.out.printf("%-20s median %6.2f ns  min %6.2f ns per iteration%n", "empty loop", base[rounds / 2], base[0]);
    for (int i = 0; i < cases.length; i++) {
      double[] ns = time(cases[i], iterations, rounds);
      System.out.printf("%-20s median %6.2f ns  min %6.2f ns per enter+leave (loop subtracted, %d pair(s) each)%n",
          names[i], (ns[rounds / 2] - base[rounds / 2]) / pairs[i], (ns[0] - base[0]) / pairs[i], pairs[i]);
    }
    if (sink == 42) {
      System.out.println();
    }
  }
}
