package jvmkit.test.walk;

import java.io.InputStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.LongUnaryOperator;

/**
 * Keeps HotSpot's own threads busy for the given seconds. The main thread loads a fresh copy of Hot
 * through a new class loader each round and runs it until its methods are hot: every copy is new
 * code for the JIT compilers (C1, then C2). Thread "allocator" allocates short-lived and retained
 * arrays and calls System.gc() every 50 ms: the GC worker threads and the VM thread work too.
 * Usage: VmThreadsMain seconds
 */
public final class VmThreadsMain {
  static byte[] hotBytes;
  static volatile long sink;

  /** The code compiled again and again: each class loader makes it a new class. */
  public static final class Hot implements LongUnaryOperator {
    @Override
    public long applyAsLong(long seed) {
      long s = seed;
      for (int i = 0; i < 20; i++) {
        s += mix(20_000, s) + digits(s) + sorted(64, s);
      }
      return s;
    }

    static long mix(int n, long seed) {
      long s = seed;
      for (int i = 0; i < n; i++) {
        s = s * 6364136223846793005L + (i ^ (s >>> 29));
      }
      return s;
    }

    static long digits(long s) {
      return Long.toHexString(s).chars().filter(Character::isDigit).count();
    }

    static long sorted(int n, long seed) {
      long[] a = new long[n];
      long s = seed;
      for (int i = 0; i < n; i++) {
        s = s * 31 + i;
        a[i] = s;
      }
      for (int i = 1; i < n; i++) {
        long x = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > x) {
          a[j + 1] = a[j];
          j--;
        }
        a[j + 1] = x;
      }
      return a[n / 2];
    }
  }

  static final class OneShotLoader extends ClassLoader {
    static final String HOT = "jvmkit.test.walk.VmThreadsMain$Hot";

    OneShotLoader() {
      super(VmThreadsMain.class.getClassLoader());
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.equals(HOT)) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        return c != null ? c : defineClass(name, hotBytes, 0, hotBytes.length);
      }
    }
  }

  static int compileRounds(long deadline) throws ReflectiveOperationException {
    int rounds = 0;
    while (System.nanoTime() < deadline) {
      Class<?> c = new OneShotLoader().loadClass(OneShotLoader.HOT);
      LongUnaryOperator hot = (LongUnaryOperator) c.getDeclaredConstructor().newInstance();
      for (int i = 0; i < 30; i++) {
        sink += hot.applyAsLong(sink + i);
      }
      rounds++;
    }
    return rounds;
  }

  static void allocate(long deadline) {
    Object[] retained = new Object[4096];
    long nextGc = System.nanoTime();
    int i = 0;
    while (System.nanoTime() < deadline) {
      byte[] garbage = new byte[256 + (i % 64) * 16];
      garbage[0] = (byte) i;
      if (i % 8 == 0) {
        retained[(i / 8) % retained.length] = new long[32 + i % 32];
      }
      sink += garbage.length;
      if (++i % 1024 == 0 && System.nanoTime() >= nextGc) {
        System.gc();
        nextGc = System.nanoTime() + 50_000_000L;
      }
    }
  }

  static long collections() {
    long n = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      n += Math.max(0, gc.getCollectionCount());
    }
    return n;
  }

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4;
    try (InputStream in = VmThreadsMain.class.getResourceAsStream("VmThreadsMain$Hot.class")) {
      hotBytes = in.readAllBytes();
    }
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    Thread allocator = new Thread(() -> allocate(deadline), "allocator");
    allocator.start();
    int rounds = compileRounds(deadline);
    allocator.join();
    System.out.printf("VmThreadsMain: %d classes compiled, %d collections%n", rounds, collections());
  }
}
