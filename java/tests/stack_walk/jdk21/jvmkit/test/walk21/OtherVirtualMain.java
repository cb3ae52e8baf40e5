package jvmkit.test.walk21;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * RequestStackTrace for another thread that is a virtual thread (tests/stack_walk/virtual): a
 * parked (unmounted) one gives its frozen stack, a running (mounted) one its stack at delivery,
 * both biased and reported for the virtual thread itself; an ended one is refused or fails.
 */
public final class OtherVirtualMain {
  static native String traceOf(Thread thread);

  static volatile boolean running = true;
  static volatile long sink;
  static int failures;

  static void parkedHere(CountDownLatch ready) {
    ready.countDown();
    while (running) LockSupport.park();
  }

  static void spinHere(CountDownLatch ready) {
    ready.countDown();
    long s = 0;
    while (running) s += (long) Math.sqrt(s) ^ (s >>> 3);
    sink = s;
  }

  static void check(String what, boolean ok, String trace) {
    System.out.println((ok ? "ok   " : "FAIL ") + what + ": " + trace);
    if (!ok) failures++;
  }

  public static void main(String[] args) throws Exception {
    CountDownLatch ready = new CountDownLatch(2);
    Thread parked = Thread.ofVirtual().name("parked-virtual").start(() -> parkedHere(ready));
    Thread spinning = Thread.ofVirtual().name("spinning-virtual").start(() -> spinHere(ready));
    ready.await();
    while (parked.getState() != Thread.State.WAITING) Thread.onSpinWait();
    for (int i = 0; i < 20; i++) {
      String p = traceOf(parked);
      check("parked", p.startsWith("biased=1 thread=parked-virtual ") && p.contains("parkedHere;"), p);
      String s = traceOf(spinning);
      check("running", s.startsWith("biased=1 thread=spinning-virtual ") && s.contains("spinHere;"), s);
    }
    running = false;
    LockSupport.unpark(parked);
    parked.join();
    spinning.join();
    String ended = traceOf(parked);
    check("ended", ended.startsWith("refused ") || ended.startsWith("failure "), ended);
    if (failures > 0) {
      System.out.println(failures + " checks failed");
      System.exit(1);
    }
    System.out.println("PASS");
  }
}
