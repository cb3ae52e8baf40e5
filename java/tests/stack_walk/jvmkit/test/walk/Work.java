package jvmkit.test.walk;

/** CPU-bound Java work with some depth, calls, allocation and intrinsics: what samples land in. */
public final class Work {
  private Work() {}

  private static volatile long sink;

  public static long compute(int depth, int n) {
    if (depth > 0) {
      return compute(depth - 1, n) + depth;
    }
    long s = 0;
    for (int i = 0; i < n; i++) {
      s += (long) Math.sqrt(i) ^ (s >>> 3);
      if ((i & 1023) == 0) {
        s += new StringBuilder().append(i).append('x').length();
      }
    }
    return s;
  }

  // Ends the open-ended runs (runUntilStopped, startUntilStopped).
  private static volatile boolean stopped;

  /** One round of compute(). */
  public static void computeOnce() {
    sink += compute(8 + (int) (sink & 7), 20_000);
  }

  /** Runs compute() until stop(). */
  public static void runUntilStopped() {
    while (!stopped) {
      computeOnce();
    }
  }

  /** Starts n threads named prefix + i, each running until stop(). */
  public static Thread[] startUntilStopped(String prefix, int n) {
    Thread[] threads = new Thread[n];
    for (int i = 0; i < n; i++) {
      threads[i] = new Thread(Work::runUntilStopped, prefix + i);
      threads[i].start();
    }
    return threads;
  }

  public static void stop() {
    stopped = true;
  }

  /** Runs compute() until the deadline. */
  public static void runUntil(long deadlineNanos) {
    while (System.nanoTime() < deadlineNanos) {
      sink += compute(8 + (int) (sink & 7), 20_000);
    }
  }

  /** Starts n threads named prefix + i, each running until the deadline. */
  public static Thread[] start(String prefix, int n, long deadlineNanos) {
    Thread[] threads = new Thread[n];
    for (int i = 0; i < n; i++) {
      threads[i] = new Thread(() -> runUntil(deadlineNanos), prefix + i);
      threads[i].start();
    }
    return threads;
  }

  public static void joinAll(Thread[] threads) throws InterruptedException {
    for (Thread t : threads) {
      t.join();
    }
  }
}
