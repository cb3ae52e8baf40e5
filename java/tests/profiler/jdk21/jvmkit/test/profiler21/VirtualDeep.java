package jvmkit.test.profiler21;

import java.util.ArrayList;
import java.util.List;

/**
 * Virtual threads that run deep in their own stack and yield without pause (JDK 21+): each of
 * THREADS virtual threads recurses DEPTH frames into {@code descend}, then spins in {@code spin}
 * and calls {@code Thread.yield()} every few microseconds. At each mount HotSpot thaws only the
 * top frames of such a stack back onto the carrier; the rest stay frozen in the heap until the
 * frames above them return. A whole stack of a sample in {@code spin} holds DEPTH + 1 frames of
 * {@code descend} above {@code body}.
 *
 * <p>Usage: VirtualDeep SECONDS [THREADS] [DEPTH]. Prints "units N" (the work done).
 */
public final class VirtualDeep {
  static volatile boolean running = true;
  static volatile long sink;

  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    int depth = args.length > 2 ? Integer.parseInt(args[2]) : 150;
    long[] units = new long[threads];
    List<Thread> started = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      int index = i;
      started.add(Thread.ofVirtual().name("deep-" + i).start(() -> units[index] = body(depth)));
    }
    Thread.sleep((long) (seconds * 1000));
    running = false;
    long total = 0;
    for (int i = 0; i < threads; i++) {
      started.get(i).join();
      total += units[i];
    }
    System.out.println("units " + total);
  }

  static long body(int depth) {
    return descend(depth);
  }

  static long descend(int remaining) {
    if (remaining > 0) return descend(remaining - 1) + 1;
    long units = 0;
    while (running) {
      units += spin();
      Thread.yield();
    }
    return units;
  }

  static long spin() {
    long x = sink | 1;
    for (int i = 0; i < 20_000; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
    }
    sink = x;
    return 1;
  }
}
