package jvmkit.test.walk;

/**
 * Allocation and monitor contention in every kind of frame, for the test agent's mode=at_call: its
 * SampledObjectAlloc and MonitorContendedEnter callbacks request the trace of their moment without
 * a ucontext and compare it with GetStackTrace's.
 *
 * <ul>
 *   <li>allocating threads: small objects, arrays of varying length, arrays of arrays, and now and
 *       then a 2 MB array (outside any TLAB), at allocation sites inlined into their callers once
 *       compiled (the slow paths run from C1 and C2 code through runtime stubs), and from a method
 *       kept in the interpreter;
 *   <li>threads that contend on one monitor, entered from compiled and interpreted code;
 *   <li>main calls the agent's native probe (a request from a JNI method) between short sleeps.
 * </ul>
 *
 * <p>Usage: AtCallMain seconds
 */
public final class AtCallMain {
  static volatile Object sink;
  static final Object LOCK = new Object();
  static volatile long counter;

  record Point(int x, int y) {}

  static Object small(int i) {
    return new Point(i, i + 1);
  }

  static Object array(int i) {
    return new int[16 + (i & 255)];
  }

  static Object wrap(Object o) {
    return new Object[] {o, o};
  }

  static Object nested(int i) {
    return wrap(small(i));
  }

  static Object grid(int i) {
    return new long[2 + (i & 3)][8];
  }

  /** Excluded from compilation by the test: its allocations come from the interpreter. */
  static Object interpreted(int i) {
    return (i & 1) == 0 ? new StringBuilder(32) : new char[24];
  }

  static void allocate(long end) {
    int i = 0;
    while ((i & 1023) != 0 || System.nanoTime() < end) {
      sink = small(i);
      sink = array(i);
      sink = nested(i);
      sink = grid(i);
      if ((i & 7) == 0) sink = interpreted(i);
      if ((i & 16383) == 0) sink = new byte[2 << 20];
      i++;
    }
  }

  static void spin(long nanos) {
    long until = System.nanoTime() + nanos;
    while (System.nanoTime() < until) counter++;
  }

  static synchronized void enterMethod(long nanos) {
    spin(nanos);
  }

  static void contend(long end, int id) {
    int i = 0;
    while (System.nanoTime() < end) {
      if ((i++ & 1) == 0) {
        synchronized (LOCK) {
          spin(50_000);
        }
      } else {
        synchronized (AtCallMain.class) {
          spin(50_000);
        }
        enterMethod(10_000 + id);
      }
    }
  }

  public static void main(String[] args) throws Exception {
    final double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
    final long end = System.nanoTime() + (long) (seconds * 1e9);
    Thread[] threads = new Thread[5];
    for (int t = 0; t < 2; t++) threads[t] = new Thread(() -> allocate(end), "alloc-" + t);
    for (int t = 2; t < 5; t++) {
      final int id = t;
      threads[t] = new Thread(() -> contend(end, id), "contend-" + t);
    }
    for (Thread t : threads) t.start();
    while (System.nanoTime() < end) {
      Agent.probe();
      Thread.sleep(2);
    }
    for (Thread t : threads) t.join();
  }
}
