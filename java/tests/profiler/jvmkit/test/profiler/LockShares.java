package jvmkit.test.profiler;

import java.util.Random;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Fixed shares of time waited for locks: one thread waits for a monitor (synchronized) that a
 * holder thread keeps for 2-6 ms at a time, another for a ReentrantLock that its holder keeps for
 * 0.2-1 ms (about 2:1 of the time waited). A waiter tries its lock only once the holder has it again (a round counter), so
 * every try waits. The truth is the time each waiter really waited for its lock, measured around
 * each acquisition; the profile must charge it to waitMonitor (lock class java.lang.Object) and
 * waitReentrant (java.util.concurrent.locks.ReentrantLock$NonfairSync).
 * Usage: LockShares SECONDS TRUTH_FILE
 */
public final class LockShares {
  static final Object MONITOR = new Object();
  static final ReentrantLock LOCK = new ReentrantLock();
  static volatile boolean running = true;
  static volatile long monitorRound, lockRound;  // the holders' acquisitions
  static long sink;
  static volatile byte[] kept;  // the holders allocate too, for runs that sample allocations as well

  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    long[] waited = new long[2];
    Thread[] threads = {
      new Thread(() -> holdMonitor(new Random(1)), "monitor-holder"),
      new Thread(() -> holdLock(new Random(2)), "lock-holder"),
      new Thread(() -> waited[0] = monitorWaiter(), "monitor-waiter"),
      new Thread(() -> waited[1] = lockWaiter(), "lock-waiter"),
    };
    for (Thread t : threads) t.start();
    Thread.sleep((long) (seconds * 1000));
    running = false;
    for (Thread t : threads) t.join();
    new Truth().within("jvmkit.test.profiler.LockShares.wait")
        .shares(new String[] {"LockShares.waitMonitor", "LockShares.waitReentrant"}, waited)
        .write(args[1]);
    System.out.printf("waited: monitor %d ms, reentrant %d ms%n", waited[0] / 1_000_000, waited[1] / 1_000_000);
  }

  static void holdMonitor(Random random) {
    while (running) {
      synchronized (MONITOR) {
        monitorRound++;
        kept = new byte[64 << 10];
        pause(2_000_000 + random.nextInt(4_000_000));
      }
      pause(100_000);  // the waiter takes the monitor meanwhile
    }
  }

  static void holdLock(Random random) {
    while (running) {
      LOCK.lock();
      try {
        lockRound++;
        kept = new byte[64 << 10];
        pause(200_000 + random.nextInt(800_000));
      } finally {
        LOCK.unlock();
      }
      pause(100_000);
    }
  }

  static long monitorWaiter() {
    long total = 0;
    for (long seen = 0; running; seen = monitorRound) {
      while (running && monitorRound == seen) Thread.onSpinWait();
      total += waitMonitor();
    }
    return total;
  }

  static long lockWaiter() {
    long total = 0;
    for (long seen = 0; running; seen = lockRound) {
      while (running && lockRound == seen) Thread.onSpinWait();
      total += waitReentrant();
    }
    return total;
  }

  /** Takes the monitor once; returns how long that took. */
  static long waitMonitor() {
    long start = System.nanoTime();
    synchronized (MONITOR) {
      long waited = System.nanoTime() - start;
      sink++;
      return waited;
    }
  }

  static long waitReentrant() {
    long start = System.nanoTime();
    LOCK.lock();
    try {
      sink++;
      return System.nanoTime() - start;
    } finally {
      LOCK.unlock();
    }
  }

  /** Sleeps about NANOS (a sleeping holder keeps the machine free for the others). */
  static void pause(long nanos) {
    try {
      Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
