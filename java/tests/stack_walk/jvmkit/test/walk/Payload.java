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

  static long inner(int n) {
    long s = 0;
    for (int i = 0; i < n; i++) {
      s += (long) i * i ^ (s >>> 5);
    }
    return s;
  }
}
