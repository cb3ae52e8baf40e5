package jvmkit.test.profiler;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;

/**
 * Allocations of classes that are unloaded soon after: each round defines {@link AllocUnloadable}
 * in a fresh class loader, has it allocate about 8 MB of its own instances, and drops the loader; a
 * GC every few rounds unloads them. The allocated class must keep its name in the profile (the
 * profiler names it when the allocation is sampled, not when it writes the profile).
 * Usage: AllocUnloading SECONDS TRUTH_FILE
 */
public final class AllocUnloading {
  static long sink;

  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    byte[] bytes;
    try (InputStream in = AllocUnloading.class.getResourceAsStream("AllocUnloadable.class")) {
      bytes = in.readAllBytes();
    }
    long unloadedBefore = ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount();
    long end = System.nanoTime() + (long) (seconds * 1e9);
    int rounds = 0;
    while (System.nanoTime() < end) {
      round(bytes);
      if (++rounds % 10 == 0) System.gc();
    }
    System.gc();
    long unloaded = ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount() - unloadedBefore;
    System.out.println("rounds " + rounds + ", classes unloaded " + unloaded);
    if (unloaded < rounds / 4) {
      System.out.println("FAIL: the workload did not unload its classes (" + unloaded + " of " + rounds + ")");
      System.exit(1);
    }
    // Nearly all the bytes of a round are instances of the unloaded class, allocated in its method.
    new Truth().within("jvmkit.test.profiler.AllocUnloading.round").includeOther()
        .shares(new String[] {"jvmkit.test.profiler.AllocUnloadable.allocate"}, new long[] {1})
        .forbid("?")
        .write(args[1]);
  }

  static void round(byte[] bytes) throws Exception {
    ClassLoader loader = new ClassLoader(AllocUnloading.class.getClassLoader()) {
      @Override
      protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (name.equals("jvmkit.test.profiler.AllocUnloadable")) {
          synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) c = defineClass(name, bytes, 0, bytes.length);
            return c;
          }
        }
        return super.loadClass(name, resolve);
      }
    };
    Method allocate = loader.loadClass("jvmkit.test.profiler.AllocUnloadable").getMethod("allocate", long.class);
    sink += (Long) allocate.invoke(null, 8L << 20);
  }
}
