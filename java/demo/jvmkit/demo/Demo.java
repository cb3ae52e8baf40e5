package jvmkit.demo;

import java.util.Arrays;
import java.util.Random;

/**
 * The bundled demo: a program whose hot paths are known, so that a profile of it can be checked by
 * eye. One thread spends its time in three methods in fixed proportions of wall (and CPU) time:
 *
 *   countPrimes   50%   trial division, a tight integer loop
 *   hashStrings   30%   builds strings and hashes them (allocation, String intrinsics)
 *   sortArrays    20%   fills and sorts int arrays (Arrays.sort)
 *
 * Usage: java -cp classes jvmkit.demo.Demo [seconds]   (default 10)
 */
public final class Demo {
  private static final long SLICE_NANOS = 10_000_000L; // one round: 10 ms split 5/3/2
  private static long sink; // keeps the JIT from removing the work

  public static void main(String[] args) {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 10.0;
    long end = System.nanoTime() + (long) (seconds * 1e9);
    long rounds = 0;
    while (System.nanoTime() < end) {
      runFor(SLICE_NANOS * 5 / 10, Demo::countPrimes);
      runFor(SLICE_NANOS * 3 / 10, Demo::hashStrings);
      runFor(SLICE_NANOS * 2 / 10, Demo::sortArrays);
      rounds++;
    }
    System.out.printf("demo: %d rounds in %.1f s (countPrimes 50%%, hashStrings 30%%, sortArrays 20%%), checksum %d%n",
        rounds, seconds, sink);
  }

  private static void runFor(long nanos, Runnable work) {
    long until = System.nanoTime() + nanos;
    do {
      work.run();
    } while (System.nanoTime() < until);
  }

  static void countPrimes() {
    int count = 0;
    for (int n = 2; n < 3000; n++) {
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
    for (int i = 0; i < 200; i++) {
      String s = "jvmkit-" + i + "-" + (sink & 0xff);
      h = 31 * h + s.hashCode();
    }
    sink += h;
  }

  private static final Random RANDOM = new Random(42);

  static void sortArrays() {
    int[] values = new int[2000];
    for (int i = 0; i < values.length; i++) values[i] = RANDOM.nextInt();
    Arrays.sort(values);
    sink += values[values.length / 2];
  }
}
