package jvmkit.test.profiler;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;

/**
 * Rounds of a class that is unloaded soon after it ran, for {@link Unloading} and
 * {@link AllocUnloading}: each round defines the class in a fresh class loader, calls one of its
 * static methods, and drops the loader; a GC every few rounds unloads them. The samples of a round
 * are under {@link #round}.
 */
final class UnloadingRounds {
  static long sink;

  private UnloadingRounds() {}

  /**
   * Runs rounds of CLASS_NAME.METHOD(ARGUMENT) (a static method taking a long and returning a
   * Long) for SECONDS of this thread's CPU time (at most 20 times SECONDS of wall time), then
   * checks that GC unloaded the classes (exits with FAIL if not).
   */
  static void run(double seconds, String className, String method, long argument) throws Exception {
    byte[] bytes;
    String file = className.substring(className.lastIndexOf('.') + 1) + ".class";
    try (InputStream in = UnloadingRounds.class.getResourceAsStream(file)) {
      bytes = in.readAllBytes();
    }
    long unloadedBefore = ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount();
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long cpuEnd = threads.getCurrentThreadCpuTime() + (long) (seconds * 1e9);
    long wallEnd = System.nanoTime() + (long) (seconds * 20e9);
    int rounds = 0;
    while (threads.getCurrentThreadCpuTime() < cpuEnd && System.nanoTime() < wallEnd) {
      round(className, bytes, method, argument);
      if (++rounds % 10 == 0) System.gc();
    }
    System.gc();
    long unloaded = ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount() - unloadedBefore;
    System.out.println("rounds " + rounds + ", classes unloaded " + unloaded);
    if (unloaded < rounds / 4) {
      System.out.println("FAIL: the workload did not unload its classes (" + unloaded + " of " + rounds + ")");
      System.exit(1);
    }
  }

  static void round(String className, byte[] bytes, String method, long argument) throws Exception {
    ClassLoader loader = new ClassLoader(UnloadingRounds.class.getClassLoader()) {
      @Override
      protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (name.equals(className)) {
          synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) c = defineClass(name, bytes, 0, bytes.length);
            return c;
          }
        }
        return super.loadClass(name, resolve);
      }
    };
    Method m = loader.loadClass(className).getMethod(method, long.class);
    sink += (Long) m.invoke(null, argument);
  }
}
