package jvmkit.test.profiler;

import java.util.concurrent.locks.LockSupport;

/**
 * A JVM that does nothing for a while: its main thread and three others sleep or park, so that any
 * CPU the process uses is the JVM's own housekeeping or a profiler's. Prints "ready" once its
 * threads run.
 *
 * <p>Usage: IdleTarget SECONDS
 */
public final class IdleTarget {
  public static void main(String[] args) throws Exception {
    long seconds = Long.parseLong(args[0]);
    for (int i = 0; i < 3; i++) {
      Thread t = new Thread(() -> {
        while (true) {
          LockSupport.park();
        }
      }, "idle-" + i);
      t.setDaemon(true);
      t.start();
    }
    System.out.println("ready");
    System.out.flush();
    Thread.sleep(seconds * 1000);
  }
}
