package jvmkit.test.jfr;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * A program for a short JDK recording (-XX:StartFlightRecording) that holds the events jvmkit's
 * reader must read as the JDK's does: CPU samples of a few stack shapes (recursion, inlined and
 * interpreted frames), allocation samples of several classes, monitor waits and parks (with and
 * without a blocker) long enough for the profile settings' thresholds.
 *
 * <p>Usage: JfrBusy MILLIS
 */
public final class JfrBusy {
  private static final Object LOCK = new Object();
  private static volatile long sink;

  public static void main(String[] args) throws InterruptedException {
    final long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000L;
    Thread locker = new Thread(() -> lockAndPark(end), "jfr-busy-locker");
    locker.start();
    List<Object> keep = new ArrayList<>();
    while (System.nanoTime() < end) {
      sink += recurse(12, keep);
      if (keep.size() > 50_000) keep.clear();
      synchronized (LOCK) {
        sink++;
      }
    }
    locker.join();
  }

  private static long recurse(int depth, List<Object> keep) {
    if (depth == 0) return work(keep);
    return recurse(depth - 1, keep) + depth;
  }

  private static long work(List<Object> keep) {
    long h = 0;
    for (int i = 0; i < 200; i++) {
      h += Integer.toString(i).hashCode();
      keep.add(i % 3 == 0 ? new int[i % 50] : i % 3 == 1 ? new long[i % 20] : new StringBuilder(i));
    }
    return h;
  }

  private static void lockAndPark(long end) {
    while (System.nanoTime() < end) {
      synchronized (LOCK) {
        LockSupport.parkNanos(25_000_000L);  // holds the lock: main waits to enter
      }
      LockSupport.parkNanos(LOCK, 25_000_000L);
    }
  }
}
