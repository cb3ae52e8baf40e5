package jvmkit.test.profiler;

/**
 * event=wall samples threads whether they run or not: wall-sleeper sleeps, wall-busy computes,
 * both for the same wall time, so each gets half of the samples, and the sleeper about
 * duration/interval of them.
 * Usage: WallClock SECONDS INTERVAL_NS TRUTH_FILE
 */
public final class WallClock {
  static volatile long sink;

  public static void main(String[] args) throws Exception {
    long nanos = (long) (Double.parseDouble(args[0]) * 1e9);
    long interval = Long.parseLong(args[1]);
    long start = System.nanoTime();
    Thread sleeper = new Thread(() -> {
      while (System.nanoTime() - start < nanos) {
        try {
          Thread.sleep(5);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "wall-sleeper");
    Thread busy = new Thread(() -> {
      long x = 1;
      while (System.nanoTime() - start < nanos) x = Ratios.work(x);
      sink = x;
    }, "wall-busy");
    sleeper.start();
    busy.start();
    sleeper.join();
    busy.join();
    new Truth().shares(new String[] {"[wall-sleeper ", "[wall-busy "}, new long[] {1, 1})
        .count("[wall-sleeper ", nanos / interval, 0.25)
        .write(args[2]);
  }
}
