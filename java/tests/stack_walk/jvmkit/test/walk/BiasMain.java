package jvmkit.test.walk;

/**
 * The safepoint-bias trap. hot() is a long counted int loop; the caller follows it with a cheap
 * call. With -XX:+UseParallelGC, C2 compiles the loop without a safepoint poll, so a sampler that
 * waits for a safepoint (JVMTI GetStackTrace, a handshake) catches the thread only at hot()'s
 * return poll, where hot's frame is already gone, or in cheap(): it blames spin() or cheap(), never
 * hot(), where the time goes. hot() and cheap() are kept out of line (-XX:CompileCommand). Usage:
 * BiasMain seconds
 */
public final class BiasMain {
  static volatile int sink;

  static int hot(int n, int seed) {
    int s = seed;
    for (int i = 0; i < n; i++) {
      s = s * 31 + (i ^ (s >>> 7));
    }
    return s;
  }

  static int cheap(int s) {
    return s ^ (s >>> 16);
  }

  static void spin(long deadline, int n) {
    while (System.nanoTime() < deadline) {
      int s = hot(n, sink);
      sink = cheap(s);
    }
  }

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 6;
    // Warm-up on main: hot(), cheap() and spin() get C2-compiled before the sampled thread starts.
    spin(System.nanoTime() + 2_000_000_000L, 10_000);
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    Thread t = new Thread(() -> spin(deadline, 10_000_000), "hot-0");
    t.start();
    t.join();
  }
}
