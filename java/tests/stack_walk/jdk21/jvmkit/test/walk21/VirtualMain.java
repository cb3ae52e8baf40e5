package jvmkit.test.walk21;

import java.util.ArrayList;
import java.util.List;

/**
 * Virtual threads under sampling (JDK 21+). The agent samples the carrier threads
 * ("ForkJoinPool-1-worker-*"); a trace taken while a virtual thread is mounted must be reported
 * for the carrier (jvmkit's documented choice) and contain the virtual thread's own frames
 * (virtualWork). Usage: VirtualMain seconds
 */
public final class VirtualMain {
  static volatile long sink;

  static long virtualWork(int n) {
    long s = 0;
    for (int i = 0; i < n; i++) {
      s += (long) Math.sqrt(i) ^ (s >>> 3);
    }
    return s;
  }

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4;
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      threads.add(Thread.ofVirtual().name("virtual-" + i).start(() -> {
        while (System.nanoTime() < deadline) {
          sink += virtualWork(50_000);
          Thread.yield();
        }
      }));
    }
    for (Thread t : threads) {
      t.join();
    }
  }
}
