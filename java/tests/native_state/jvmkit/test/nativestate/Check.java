package jvmkit.test.nativestate;

/** Assertions for the JVM tests: a failed check ends the JVM with status 1 and a clear message. */
final class Check {
  private Check() {}

  static void that(boolean ok, String what) {
    if (!ok) {
      fail(what);
    }
  }

  static void equal(long expected, long actual, String what) {
    if (expected != actual) {
      fail(what + ": expected " + expected + ", got " + actual);
    }
  }

  static void fail(String what) {
    System.err.println("FAILED: " + what);
    System.err.flush();
    Runtime.getRuntime().halt(1);
  }

  /** Runs BODY and checks that it throws exactly TYPE (the exception JNI left pending). */
  static void throwsPending(Class<? extends Throwable> type, Runnable body, String what) {
    try {
      body.run();
    } catch (Throwable t) {
      if (t.getClass() != type) {
        fail(what + ": expected " + type.getName() + " pending, got " + t);
      }
      return;
    }
    fail(what + ": expected " + type.getName() + " pending, nothing was thrown");
  }

  /** Collects garbage until REF is cleared (or fails after a few seconds). */
  static void gcUntilCleared(java.lang.ref.Reference<?> ref, String what) {
    for (int i = 0; i < 200 && ref.get() != null; i++) {
      System.gc();
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    that(ref.get() == null, what + ": object not collected");
  }

  static void pass(String test) {
    System.out.println("PASSED: " + test);
  }
}
