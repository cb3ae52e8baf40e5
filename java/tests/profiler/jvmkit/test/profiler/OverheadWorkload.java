package jvmkit.test.profiler;

import java.util.Arrays;
import java.util.Random;

/**
 * The fixed workload of the overhead benchmark (bench/profiler): after an untimed warm-up, a fixed
 * number of rounds of integer work, string building and hashing (allocation), and sorting. Prints
 * the timed phase's wall time and the main thread's CPU time (which includes the time spent in the
 * profiler's signal handler), so JVM start-up and the profiler's output writing are not counted.
 * Usage: OverheadWorkload ROUNDS [READY_FILE GO_FILE]
 *
 * <p>With the two files, it creates READY_FILE after the warm-up and waits until GO_FILE exists
 * before the timed phase: the window in which a benchmark attaches a profiler to it.
 */
public final class OverheadWorkload {
  static long sink;
  static final Random RANDOM = new Random(42);

  public static void main(String[] args) throws Exception {
    int rounds = Integer.parseInt(args[0]);
    for (int i = 0; i < rounds / 10; i++) round(); // warm-up: JIT compilation, untimed
    if (args.length >= 3) {
      java.nio.file.Files.createFile(java.nio.file.Path.of(args[1]));
      while (!java.nio.file.Files.exists(java.nio.file.Path.of(args[2]))) Thread.sleep(5);
    }
    long c0 = Truth.cpuNanos();
    long t0 = System.nanoTime();
    for (int i = 0; i < rounds; i++) round();
    long elapsed = System.nanoTime() - t0;
    long cpu = Truth.cpuNanos() - c0;
    System.out.println("elapsed_ns " + elapsed + " cpu_ns " + cpu + " sink " + sink);
  }

  static void round() {
    countPrimes();
    hashStrings();
    sortArray();
  }

  static void countPrimes() {
    int count = 0;
    for (int n = 2; n < 20000; n++) {
      boolean prime = true;
      for (int d = 2; d * d <= n; d++) {
        if (n % d == 0) {
          prime = false;
          break;
        }
      }
      if (prime) count++;
    }
    sink += count;
  }

  static void hashStrings() {
    int h = 0;
    for (int i = 0; i < 2000; i++) {
      String s = "overhead-" + i + "-" + (sink & 0xff);
      h = 31 * h + s.hashCode();
    }
    sink += h;
  }

  static void sortArray() {
    int[] values = new int[20000];
    for (int i = 0; i < values.length; i++) values[i] = RANDOM.nextInt();
    Arrays.sort(values);
    sink += values[values.length / 2];
  }
}
