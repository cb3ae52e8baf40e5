package jvmkit.test.walk;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;

/**
 * Worker threads load Payload through a new class loader each round, run it for a while
 * (its methods are on the sampled stacks), and drop the loader; the main thread forces GCs so the
 * classes are unloaded while samples of them are in flight. Usage: UnloadMain seconds threads
 */
public final class UnloadMain {
  static byte[] payloadBytes;
  static volatile long sink;

  static final class OneShotLoader extends ClassLoader {
    OneShotLoader() {
      super(UnloadMain.class.getClassLoader());
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (name.equals("jvmkit.test.walk.Payload")) {
        synchronized (getClassLoadingLock(name)) {
          Class<?> c = findLoadedClass(name);
          if (c == null) {
            c = defineClass(name, payloadBytes, 0, payloadBytes.length);
          }
          return c;
        }
      }
      return super.loadClass(name, resolve);
    }
  }

  static void churn(long deadline) {
    try {
      while (System.nanoTime() < deadline) {
        Class<?> c = new OneShotLoader().loadClass("jvmkit.test.walk.Payload");
        Method run = c.getMethod("run", int.class);
        for (int i = 0; i < 20; i++) {
          sink += (Long) run.invoke(null, 20_000);
        }
      }
    } catch (ReflectiveOperationException e) {
      throw new RuntimeException(e);
    }
  }

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 6;
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    try (InputStream in = UnloadMain.class.getResourceAsStream("Payload.class")) {
      payloadBytes = in.readAllBytes();
    }
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    Thread[] workers = new Thread[threads];
    for (int i = 0; i < threads; i++) {
      workers[i] = new Thread(() -> churn(deadline), "worker-" + i);
      workers[i].start();
    }
    while (System.nanoTime() < deadline) {
      Thread.sleep(100);
      System.gc();
    }
    Work.joinAll(workers);
    System.gc();
    long unloaded = ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount();
    System.out.println("classes unloaded: " + unloaded);
    if (unloaded < 10) {
      System.err.println("FAIL: too few classes were unloaded for the test to mean anything");
      System.exit(1);
    }
  }
}
