package jvmkit.test.profiler;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;

/**
 * Classes that are unloaded soon after they ran: each round defines {@link Unloadable} in a fresh
 * class loader, runs its spin method for ~50 ms, and drops the loader; a GC every few rounds
 * unloads them. Their methods must appear under their real names: the profiler resolves names
 * while the stack-walk library keeps the class pinned, not when it writes the output.
 * Usage: Unloading SECONDS TRUTH_FILE
 */
public final class Unloading {
  static long sink;

  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    byte[] bytes;
    try (InputStream in = Unloading.class.getResourceAsStream("Unloadable.class")) {
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
    new Truth().within("jvmkit.test.profiler.Unloading.round").includeOther()
        .shares(new String[] {"jvmkit.test.profiler.Unloadable.spin"}, new long[] {1})
        .forbid("?.")
        .forbid(".?")
        .write(args[1]);
  }

  static void round(byte[] bytes) throws Exception {
    ClassLoader loader = new ClassLoader(Unloading.class.getClassLoader()) {
      @Override
      protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (name.equals("jvmkit.test.profiler.Unloadable")) {
          synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) c = defineClass(name, bytes, 0, bytes.length);
            return c;
          }
        }
        return super.loadClass(name, resolve);
      }
    };
    Method spin = loader.loadClass("jvmkit.test.profiler.Unloadable").getMethod("spin", long.class);
    sink += (Long) spin.invoke(null, 50L);
  }
}
