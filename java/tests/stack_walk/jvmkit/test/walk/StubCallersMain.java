package jvmkit.test.walk;

import java.util.Arrays;

/**
 * Loops that spend nearly all their time inside code that is not a Java frame of its own: the
 * arraycopy stubs (byte, char, int, long and Object arrays, disjoint and overlapping), the fill
 * code behind Arrays.fill, the String intrinsics (indexOf, equals, compareTo) and StringBuilder's
 * insert/delete, which copy through the inlined AbstractStringBuilder.shift. A sample there belongs
 * to the Java method that called the stub, with every method inlined into it on the way: the test
 * agent checks each worker's top frame against the method named for it (option expect_top).
 *
 * <p>One thread per workload, named "worker-WORKLOAD"; each runs its class's hotLoop(), which the
 * test keeps out of line (-XX:CompileCommand=dontinline,*::hotLoop), and every correct trace of a
 * worker contains that frame. The arrays are large so that the loop's own code is a negligible
 * share of the time.
 *
 * <p>Usage: StubCallersMain seconds|sampled:max_seconds [workload...] (default: all of them; the
 * run's length: see RunLength)
 */
public final class StubCallersMain {
  static volatile long sink;

  static final int SIZE = 256 * 1024;

  /** System.arraycopy of byte[]: disjoint, then overlapping in both directions. */
  static final class Bytes {
    static final byte[] A = new byte[SIZE];
    static final byte[] B = new byte[SIZE];

    static long hotLoop(int n) {
      for (int i = 0; i < n; i++) {
        System.arraycopy(A, i & 7, B, 0, SIZE - 8);
        System.arraycopy(B, 1, B, 0, SIZE - 1);
        System.arraycopy(B, 0, B, 1, SIZE - 1);
      }
      return B[n & 255];
    }
  }

  /** System.arraycopy of char[]. */
  static final class Chars {
    static final char[] A = new char[SIZE / 2];
    static final char[] B = new char[SIZE / 2];

    static long hotLoop(int n) {
      for (int i = 0; i < n; i++) {
        System.arraycopy(A, i & 7, B, 0, B.length - 8);
        System.arraycopy(B, 1, B, 0, B.length - 1);
        System.arraycopy(B, 0, B, 1, B.length - 1);
      }
      return B[n & 255];
    }
  }

  /** System.arraycopy of int[]. */
  static final class Ints {
    static final int[] A = new int[SIZE / 4];
    static final int[] B = new int[SIZE / 4];

    static long hotLoop(int n) {
      for (int i = 0; i < n; i++) {
        System.arraycopy(A, i & 7, B, 0, B.length - 8);
        System.arraycopy(B, 1, B, 0, B.length - 1);
        System.arraycopy(B, 0, B, 1, B.length - 1);
      }
      return B[n & 255];
    }
  }

  /** System.arraycopy of long[]. */
  static final class Longs {
    static final long[] A = new long[SIZE / 8];
    static final long[] B = new long[SIZE / 8];

    static long hotLoop(int n) {
      for (int i = 0; i < n; i++) {
        System.arraycopy(A, i & 7, B, 0, B.length - 8);
        System.arraycopy(B, 1, B, 0, B.length - 1);
        System.arraycopy(B, 0, B, 1, B.length - 1);
      }
      return B[n & 255];
    }
  }

  /** System.arraycopy of Object[] (the oop copy stubs, with their GC barriers). */
  static final class Objects {
    static final Object[] A = new Object[SIZE / 8];
    static final Object[] B = new Object[SIZE / 8];

    static {
      Arrays.fill(A, "x");
    }

    static long hotLoop(int n) {
      for (int i = 0; i < n; i++) {
        System.arraycopy(A, i & 7, B, 0, B.length - 8);
        System.arraycopy(B, 1, B, 0, B.length - 1);
        System.arraycopy(B, 0, B, 1, B.length - 1);
      }
      return B[n & 255] == null ? 0 : 1;
    }
  }

  /** Arrays.fill of a byte[] and an int[]. */
  static final class Fill {
    static final byte[] A = new byte[SIZE];
    static final int[] B = new int[SIZE / 4];

    static long hotLoop(int n) {
      for (int i = 0; i < n; i++) {
        Arrays.fill(A, (byte) i);
        Arrays.fill(B, i);
      }
      return A[n & 255] + B[n & 255];
    }
  }

  /** String.indexOf(String) on a long Latin-1 string, the needle at its end. */
  static final class IndexOf {
    static final String HAYSTACK = "ab".repeat(SIZE / 4) + "needle";

    static long hotLoop(int n) {
      long s = 0;
      for (int i = 0; i < n; i++) {
        s += HAYSTACK.indexOf("needle", i & 7);
      }
      return s;
    }
  }

  /** String.equals of two equal long strings (different objects). */
  static final class Equals {
    static final String X = "abcdefgh".repeat(SIZE / 8);
    static final String Y = new String(X.toCharArray());

    static long hotLoop(int n) {
      long s = 0;
      for (int i = 0; i < n; i++) {
        if (X.equals(Y)) {
          s += i;
        }
      }
      return s;
    }
  }

  /** String.compareTo of two long strings that differ at the end. */
  static final class CompareTo {
    static final String X = "abcdefgh".repeat(SIZE / 8) + "a";
    static final String Y = "abcdefgh".repeat(SIZE / 8) + "b";

    static long hotLoop(int n) {
      long s = 0;
      for (int i = 0; i < n; i++) {
        s += X.compareTo(Y);
      }
      return s;
    }
  }

  /** StringBuilder.delete at the front of a long builder: the rest moves down (shift). */
  static final class SbDelete {
    static final StringBuilder SB = new StringBuilder("abcdefgh".repeat(SIZE / 8));

    static long hotLoop(int n) {
      StringBuilder sb = SB;
      for (int i = 0; i < n; i++) {
        sb.delete(0, 16);
        sb.append("0123456789abcdef");
      }
      return sb.length();
    }
  }

  /** StringBuilder.insert at the front of a long builder: the rest moves up (shift). */
  static final class SbInsert {
    static final StringBuilder SB = new StringBuilder("abcdefgh".repeat(SIZE / 8));

    static long hotLoop(int n) {
      StringBuilder sb = SB;
      for (int i = 0; i < n; i++) {
        sb.insert(0, "0123456789abcdef");
        sb.setLength(sb.length() - 16);
      }
      return sb.length();
    }
  }

  static final String[] ALL = {
    "bytes", "chars", "ints", "longs", "objects", "fill", "indexof", "equals", "compareto", "sbdelete", "sbinsert"
  };

  static long once(int kind, int n) {
    return switch (kind) {
      case 0 -> Bytes.hotLoop(n);
      case 1 -> Chars.hotLoop(n);
      case 2 -> Ints.hotLoop(n);
      case 3 -> Longs.hotLoop(n);
      case 4 -> Objects.hotLoop(n);
      case 5 -> Fill.hotLoop(n);
      case 6 -> IndexOf.hotLoop(n);
      case 7 -> Equals.hotLoop(n);
      case 8 -> CompareTo.hotLoop(n);
      case 9 -> SbDelete.hotLoop(n);
      default -> SbInsert.hotLoop(n);
    };
  }

  static void run(int kind, RunLength length) {
    long s = 0;
    while (length.running()) {
      s += once(kind, 50);
    }
    sink += s;
  }

  public static void main(String[] args) throws Exception {
    RunLength length = new RunLength(args.length > 0 ? args[0] : "5");
    String[] workloads = args.length > 1 ? Arrays.copyOfRange(args, 1, args.length) : ALL;
    // Initialise every workload class here, so that no worker's samples land in class loading.
    for (int k = 0; k < ALL.length; k++) {
      sink += once(k, 1);
    }
    Thread[] threads = new Thread[workloads.length];
    for (int i = 0; i < workloads.length; i++) {
      int kind = Arrays.asList(ALL).indexOf(workloads[i]);
      if (kind < 0) {
        throw new IllegalArgumentException("unknown workload " + workloads[i]);
      }
      threads[i] = new Thread(() -> run(kind, length), "worker-" + workloads[i]);
      threads[i].start();
    }
    length.await();
    for (Thread t : threads) {
      t.join();
    }
  }
}
