package jvmkit.test.hotspot;

/**
 * A JVM to attach to: prints "ready" once it runs, then waits (at most the given seconds) while a
 * thread does a little work, so that an agent loaded by attach finds Java code running.
 *
 * <p>Usage: AttachTargetMain seconds
 */
public final class AttachTargetMain {
  static volatile long sink;

  public static void main(String[] args) throws Exception {
    long seconds = args.length > 0 ? Long.parseLong(args[0]) : 60;
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    System.out.println("ready");
    System.out.flush();
    while (System.nanoTime() < deadline) {
      long s = 0;
      for (int i = 0; i < 100_000; i++) {
        s += i * 31L;
      }
      sink += s;
      Thread.sleep(20);
    }
  }
}
