package jvmkit.test.hotspot;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Checks jvmkit's direct reads of HotSpot's JavaThread (src/hotspot/java_thread.hpp) from several
 * threads: the layout is learnt, each thread's stack bounds contain a local variable of that thread
 * and differ between threads, the pending-exception field follows Throw/ExceptionClear and
 * an exception raised by Java code, and HotSpot's thread key tells Java threads from native ones. Exits 0 when every check holds; the native side prints what
 * failed.
 */
public final class ThreadLayoutMain {
  /** Returns the number of failed checks on the calling thread; prints them. */
  static native int checkCurrentThread(String label);

  /**
   * Learns HotSpot's thread key and checks that the calling thread is reported attached and a new
   * native thread detached; returns the number of failed checks.
   */
  static native int checkThreadKey(String label);

  /** The top of the calling thread's stack as jvmkit reads it (0 if the layout is unknown). */
  static native long stackTop();

  /** Calls back into thrower() and reports whether jvmkit saw the exception it left pending. */
  static native boolean seesExceptionFromJava();

  /** checkThreadKey on a new virtual thread, through reflection (this class is built for JDK 17). */
  static int checkThreadKeyOnVirtualThread() throws Exception {
    int[] result = new int[1];
    Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
    Method start = Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
    Thread virtual = (Thread) start.invoke(builder, (Runnable) () -> result[0] = checkThreadKey("virtual"));
    virtual.join();
    return result[0];
  }

  static void thrower() {
    throw new IllegalStateException("left pending for the native caller");
  }

  public static void main(String[] args) throws Exception {
    System.loadLibrary("hotspot_thread_layout_jni");
    int failures = 0;
    if (args.length > 0 && args[0].equals("virtual-first")) {
      // JDK 21+: the thread key is learnt first on a virtual thread (which has no eetop); the
      // checks on platform threads below then show that it is the right key.
      failures += checkThreadKeyOnVirtualThread();
    }
    failures += checkCurrentThread("main") + checkThreadKey("main");
    if (!seesExceptionFromJava()) {
      System.out.println("FAIL: an exception thrown by Java code was not seen as pending");
      failures++;
    }
    List<Thread> threads = new ArrayList<>();
    long[] tops = new long[4];
    int[] threadFailures = new int[4];
    // All four stay alive until each has read its stack top: an ended thread's stack is reused.
    CountDownLatch read = new CountDownLatch(4);
    for (int i = 0; i < 4; i++) {
      final int index = i;
      Thread t = new Thread(() -> {
        threadFailures[index] = checkCurrentThread("worker-" + index) + checkThreadKey("worker-" + index);
        tops[index] = stackTop();
        read.countDown();
        try {
          read.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "worker-" + i);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) t.join();
    long mainTop = stackTop();
    for (int i = 0; i < 4; i++) {
      failures += threadFailures[i];
      for (int j = 0; j < i; j++) {
        if (tops[i] == tops[j]) {
          System.out.println("FAIL: two live threads have the same stack top");
          failures++;
        }
      }
      if (tops[i] == mainTop) {
        System.out.println("FAIL: a worker has main's stack top");
        failures++;
      }
    }
    System.out.println(failures == 0 ? "OK: JavaThread layout checked on 5 threads" : "FAILED: " + failures);
    System.exit(failures == 0 ? 0 : 1);
  }
}
