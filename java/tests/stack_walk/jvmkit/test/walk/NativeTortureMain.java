package jvmkit.test.walk;

import java.util.ArrayList;
import java.util.List;

/**
 * Native code that makes stacks hard to unwind, all at once for a few seconds, while the test agent
 * samples every thread at 1 kHz with native frames: libraries dlopened and dlclosed in a loop, C
 * code that uses rbp as a general register, a return address overwritten with garbage, threads
 * created and ended in native code (half of them attached to the JVM), fork from a JNI call, and
 * garbage to collect. Nothing may crash or hang, and every request has one outcome (the agent
 * checks).
 *
 * <p>Usage: java -Djvmkit.torture.lib=PATH -Djvmkit.torture.dl=PATH jvmkit.test.walk.NativeTortureMain SECONDS
 */
public final class NativeTortureMain {
  static native void rbpGeneral(int ms);

  static native void corruptedWord(int ms);

  static native void dlopenLoop(String path, int ms);

  static native void nativeThreads(int ms);

  static native void forkLoop(int ms);

  private static volatile Object sink;

  public static void main(String[] args) throws Exception {
    System.load(System.getProperty("jvmkit.torture.lib"));
    String dl = System.getProperty("jvmkit.torture.dl");
    int ms = (int) (Double.parseDouble(args[0]) * 1000);
    List<Thread> threads = new ArrayList<>();
    threads.add(new Thread(() -> rbpGeneral(ms), "torture-rbp"));
    threads.add(new Thread(() -> corruptedWord(ms), "torture-corrupted"));
    threads.add(new Thread(() -> dlopenLoop(dl, ms), "torture-dlopen"));
    threads.add(new Thread(() -> nativeThreads(ms), "torture-threads"));
    threads.add(new Thread(() -> forkLoop(ms), "torture-fork"));
    threads.add(new Thread(() -> allocate(ms), "torture-garbage"));
    for (Thread t : threads) t.start();
    for (Thread t : threads) t.join();
    System.out.println("NativeTortureMain: done");
  }

  private static void allocate(int ms) {
    long until = System.nanoTime() + ms * 1_000_000L;
    while (System.nanoTime() < until) {
      Object[] chunk = new Object[1024];
      for (int i = 0; i < chunk.length; i++) chunk[i] = new byte[64];
      sink = chunk;
    }
  }
}
