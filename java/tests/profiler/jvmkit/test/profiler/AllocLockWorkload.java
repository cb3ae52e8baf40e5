package jvmkit.test.profiler;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The fixed workloads of the allocation and lock overhead benchmark (bench/profiler): after an
 * untimed warm-up, a fixed number of rounds, then the timed phase's wall time and the main thread's
 * CPU time, as OverheadWorkload prints them.
 *
 * <ul>
 *   <li>{@code alloc}: allocation-heavy, one thread: small objects, arrays of many sizes, strings,
 *       lists that grow, and a 1 MB array every round; a few survive a while (a ring of 1,024).
 *   <li>{@code lock}: locks that are never contended, one thread: synchronized blocks and methods
 *       and a ReentrantLock around a little work, so that a lock profiler's cost shows if it has one
 *       on the uncontended path.
 * </ul>
 *
 * <p>Usage: AllocLockWorkload alloc|lock ROUNDS
 */
public final class AllocLockWorkload {
  static long sink;
  static final Object[] RING = new Object[1024];
  static final Object MONITOR = new Object();
  static final ReentrantLock LOCK = new ReentrantLock();
  static int counter;

  public static void main(String[] args) {
    final boolean alloc = args[0].equals("alloc");
    final int rounds = Integer.parseInt(args[1]);
    for (int i = 0; i < Math.max(1, rounds / 10); i++) round(alloc, i); // warm-up, untimed
    long c0 = Truth.cpuNanos();
    long t0 = System.nanoTime();
    for (int i = 0; i < rounds; i++) round(alloc, i);
    long elapsed = System.nanoTime() - t0;
    long cpu = Truth.cpuNanos() - c0;
    System.out.println("elapsed_ns " + elapsed + " cpu_ns " + cpu + " sink " + sink);
  }

  static void round(boolean alloc, int round) {
    if (alloc) {
      allocate(round);
    } else {
      lockUnlock();
    }
  }

  static void allocate(int round) {
    for (int i = 0; i < 2000; i++) {
      Object o = switch (i & 7) {
        case 0 -> new int[8 + (i & 127)];
        case 1 -> new byte[64 + (i & 1023)];
        case 2 -> "s-" + i + "-" + round;
        case 3 -> new long[2 + (i & 15)][4];
        case 4 -> List.of(i, round);
        case 5 -> new StringBuilder(16 + (i & 63)).append(i);
        case 6 -> grow(i & 31);
        default -> new Object();
      };
      RING[(round * 2000 + i) & (RING.length - 1)] = o;
      sink += o.hashCode() & 1;
    }
    sink += new byte[1 << 20].length;
  }

  static List<Integer> grow(int n) {
    List<Integer> list = new ArrayList<>();
    for (int k = 0; k < n; k++) list.add(k);
    return list;
  }

  static synchronized void syncMethod() {
    counter++;
  }

  static void lockUnlock() {
    for (int i = 0; i < 20000; i++) {
      synchronized (MONITOR) {
        counter += i & 3;
      }
      syncMethod();
      LOCK.lock();
      try {
        counter ^= i;
      } finally {
        LOCK.unlock();
      }
    }
    sink += counter;
  }
}
