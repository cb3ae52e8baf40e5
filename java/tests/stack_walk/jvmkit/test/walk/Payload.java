package jvmkit.test.walk;

/**
 * Loaded again and again by throw-away class loaders (UnloadMain), so that classes with methods on
 * the sampled stacks are unloaded continuously.
 */
public final class Payload {
  private Payload() {}

  public static long run(int n) {
    return inner(n) + 1;
  }

  /**
   * Compiled with the branch never taken, then called with it taken: an uncommon trap, i.e. a
   * deoptimization. Every freshly loaded copy of this class does it again (TortureMain).
   */
  public static long branchy(int n, boolean rare) {
    long s = 0;
    for (int i = 0; i < n; i++) {
      if (rare && i == n / 2) {
        s += Long.toString(s).length();
      }
      s += i ^ (s << 1);
    }
    return s;
  }

  static long inner(int n) {
    long s = 0;
    for (int i = 0; i < n; i++) {
      s += (long) i * i ^ (s >>> 5);
    }
    return s;
  }
}
