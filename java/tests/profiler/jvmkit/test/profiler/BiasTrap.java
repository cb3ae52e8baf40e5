package jvmkit.test.profiler;

/**
 * The counted-loop bias trap: hotLoop is a long counted int loop (C2 removes its safepoint poll
 * with -XX:+UseParallelGC) followed by a cheap call. Nearly all time is in hotLoop; a profiler that
 * samples at safepoints blames cheapCall or the driver instead.
 * Usage: BiasTrap SECONDS TRUTH_FILE
 */
public final class BiasTrap {
  static int sink;

  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    int[] data = new int[4_000_000];
    for (int i = 0; i < data.length; i++) data[i] = i * 7;
    long end = System.nanoTime() + (long) (seconds * 1e9);
    while (System.nanoTime() < end) driver(data);
    // hotLoop takes milliseconds per call, cheapCall and the driver nanoseconds: the truth is
    // hotLoop's share ~ 1, everything else ~ 0.
    new Truth().within("jvmkit.test.profiler.BiasTrap.driver").includeOther()
        .shares(new String[] {"BiasTrap.hotLoop", "BiasTrap.cheapCall"}, new long[] {1, 0})
        .write(args[1]);
    System.out.println("sink " + sink);
  }

  static void driver(int[] data) {
    for (int r = 0; r < 10; r++) {
      int s = hotLoop(data);
      sink += cheapCall(s);
    }
  }

  static int hotLoop(int[] data) {
    int sum = 0;
    for (int i = 0; i < data.length; i++) {
      sum += (data[i] * 31) ^ (sum >>> 3);
    }
    return sum;
  }

  static int cheapCall(int s) {
    return s & 0xff;
  }
}
