package jvmkit.test.walk;

/**
 * A JNI library loaded while a sampler runs (tests/stack_walk/native/late_jni.c, from the path in
 * system property jvmkit.late.lib): the main thread sleeps for the first given seconds, then
 * System.load()s the library and spins in its C code (late_spin) for the second given seconds. It
 * passes System.nanoTime() taken just after System.load returned to the library, where the test
 * agent reads it. Usage: LateMain seconds-before seconds-in-library
 */
public final class LateMain {
  static native void spin(long loadedNanos, long nanos);

  public static void main(String[] args) throws InterruptedException {
    double before = args.length > 0 ? Double.parseDouble(args[0]) : 1;
    double inside = args.length > 1 ? Double.parseDouble(args[1]) : 2;
    Thread.sleep((long) (before * 1000));
    long start = System.nanoTime();
    System.load(System.getProperty("jvmkit.late.lib"));
    long loaded = System.nanoTime();
    spin(loaded, (long) (inside * 1e9));
    System.out.printf("LateMain: System.load took %.2f ms; %.1f s in the library%n", (loaded - start) / 1e6, inside);
  }
}
