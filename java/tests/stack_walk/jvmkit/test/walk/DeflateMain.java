package jvmkit.test.walk;

import java.util.Random;
import java.util.zip.Deflater;

/**
 * The main thread compresses a few MB of compressible pseudo-random text with java.util.zip.Deflater
 * at level 9, again and again, for the given seconds of its CPU time (at most 20 times as many of
 * wall time, next to busy processes): nearly all its time is spent in zlib's C code
 * (libz.so.1 or the copy inside libzip.so), called from the native method
 * Deflater.deflateBytesBytes. A small output buffer keeps each native call long (about a quarter MB
 * of input). Usage: DeflateMain seconds
 */
public final class DeflateMain {
  static volatile long sink;

  /** Text of words from a small vocabulary: compressible, but not trivially so. */
  static byte[] text(int size, long seed) {
    Random random = new Random(seed);
    String[] words = new String[256];
    for (int i = 0; i < words.length; i++) {
      StringBuilder word = new StringBuilder();
      for (int n = 2 + random.nextInt(8); n > 0; n--) {
        word.append((char) ('a' + random.nextInt(26)));
      }
      words[i] = word.toString();
    }
    byte[] out = new byte[size];
    int at = 0;
    while (at < size) {
      String word = words[(int) Math.abs(random.nextGaussian() * 40) % words.length];
      for (int i = 0; i < word.length() && at < size; i++) {
        out[at++] = (byte) word.charAt(i);
      }
      if (at < size) {
        out[at++] = (byte) (random.nextInt(12) == 0 ? '\n' : ' ');
      }
    }
    return out;
  }

  static long compress(Deflater deflater, byte[] input, byte[] output) {
    deflater.reset();
    deflater.setInput(input);
    deflater.finish();
    long written = 0;
    while (!deflater.finished()) {
      written += deflater.deflate(output);
    }
    return written;
  }

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4;
    byte[] input = text(4 << 20, 42);
    byte[] output = new byte[64 << 10];
    // Deflater's class initialisation loads libzip, whose unwind table jvmkit's watcher builds
    // within ~50 ms. How samples in a library not prepared yet end is another test's subject: the
    // measured loop starts after that, and nothing runs in libzip before it but Deflater.init.
    Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION);
    Thread.sleep(200);
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    long cpuEnd = threads.getCurrentThreadCpuTime() + (long) (seconds * 1e9);
    long wallEnd = System.nanoTime() + (long) (seconds * 20e9);
    int rounds = 0;
    long total = 0;
    while (threads.getCurrentThreadCpuTime() < cpuEnd && System.nanoTime() < wallEnd) {
      total += compress(deflater, input, output);
      rounds++;
    }
    deflater.end();
    sink = total;
    System.out.printf("DeflateMain: %d rounds of %d bytes, %.1f%% of the input size on average%n", rounds,
        input.length, rounds == 0 ? 0.0 : 100.0 * total / rounds / input.length);
  }
}
