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
 *   <li>main calls the agent's native probe (a request from a JNI method) between short sleeps;
 *   <li>thread "init-0" defines AtCallInit again and again, each time with a class loader of its
 *       own, and initialises it: the static initializer, run by the VM in a call back into Java,
 *       allocates through the compiled methods above, below the frames that asked for the class.
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

  /** AtCallInit's static initializer, ~0.7 MB (public: AtCallInit lives in another loader's package). */
  public static void initAllocations() {
    for (int i = 0; i < 1024; i++) {
      sink = small(i);
      sink = array(i);
      sink = nested(i);
      sink = grid(i);
    }
  }

  /** A loader that defines AtCallInit itself (a new class each time) and delegates the rest. */
  static final class InitLoader extends ClassLoader {
    private final byte[] bytes;

    InitLoader(byte[] bytes) {
      super(AtCallMain.class.getClassLoader());
      this.bytes = bytes;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.equals(AtCallInit.class.getName())) return super.loadClass(name, resolve);
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        return c != null ? c : defineClass(name, bytes, 0, bytes.length);
      }
    }
  }

  static void initialise(long end) {
    try (java.io.InputStream in = AtCallMain.class.getResourceAsStream("AtCallInit.class")) {
      byte[] bytes = in.readAllBytes();
      long start = System.nanoTime();
      while (System.nanoTime() < end) {
        // Warm-up first: the allocation methods are compiled before the initializers call them.
        if (System.nanoTime() - start < 300_000_000L) {
          initAllocations();
          continue;
        }
        // Then a class every 10 ms: enough traces, and little load on the tests beside this one.
        Class.forName(AtCallInit.class.getName(), true, new InitLoader(bytes));
        Thread.sleep(10);
      }
    } catch (java.io.IOException | ClassNotFoundException | InterruptedException e) {
      throw new IllegalStateException(e);
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
    Thread[] threads = new Thread[6];
    for (int t = 0; t < 2; t++) threads[t] = new Thread(() -> allocate(end), "alloc-" + t);
    for (int t = 2; t < 5; t++) {
      final int id = t;
      threads[t] = new Thread(() -> contend(end, id), "contend-" + t);
    }
    threads[5] = new Thread(() -> initialise(end), "init-0");
    for (Thread t : threads) t.start();
    while (System.nanoTime() < end) {
      Agent.probe();
      Thread.sleep(2);
    }
    for (Thread t : threads) t.join();
  }
}
