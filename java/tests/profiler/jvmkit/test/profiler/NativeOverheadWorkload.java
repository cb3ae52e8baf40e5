package jvmkit.test.profiler;

import java.util.Random;
import java.util.zip.Deflater;

/**
 * The fixed workload of the mixed-stack overhead benchmark
 * (bench/profiler/native_frames_vs_async_profiler.sh): after an untimed warm-up, a fixed number of
 * rounds, each one compression of 256 KiB of text with java.util.zip.Deflater at level 9 (the time
 * in zlib's C code below the native method Deflater.deflateBytesBytes: stacks of Java and native
 * frames) and one round of {@link OverheadWorkload}'s Java work (integer loops, strings, sorting:
 * Java frames only). Prints the timed phase's wall time and the main thread's CPU time (which
 * includes the time spent in a profiler's signal handler), and the main thread's CPU time from the
 * start of main() to the end (warm-up included), so that a benchmark can tell which part of the
 * samples of main() fell into the timed phase. Usage: NativeOverheadWorkload ROUNDS
 */
public final class NativeOverheadWorkload {
  static long sink;

  /** Words from a small vocabulary: compressible, but not trivially so (as the stack-walk test's DeflateMain). */
  static byte[] text(int size, long seed) {
    Random random = new Random(seed);
    String[] words = new String[256];
    for (int i = 0; i < words.length; i++) {
      StringBuilder word = new StringBuilder();
      for (int n = 2 + random.nextInt(8); n > 0; n--) word.append((char) ('a' + random.nextInt(26)));
      words[i] = word.toString();
    }
    byte[] out = new byte[size];
    int at = 0;
    while (at < size) {
      String word = words[(int) Math.abs(random.nextGaussian() * 40) % words.length];
      for (int i = 0; i < word.length() && at < size; i++) out[at++] = (byte) word.charAt(i);
      if (at < size) out[at++] = (byte) (random.nextInt(12) == 0 ? '\n' : ' ');
    }
    return out;
  }

  public static void main(String[] args) {
    long start = Truth.cpuNanos();
    int rounds = Integer.parseInt(args[0]);
    byte[] input = text(256 << 10, 42);
    byte[] output = new byte[64 << 10];
    Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION);
    for (int i = 0; i < rounds / 10; i++) round(deflater, input, output); // warm-up: JIT compilation, untimed
    long c0 = Truth.cpuNanos();
    long t0 = System.nanoTime();
    for (int i = 0; i < rounds; i++) round(deflater, input, output);
    long elapsed = System.nanoTime() - t0;
    long end = Truth.cpuNanos();
    deflater.end();
    System.out.println("elapsed_ns " + elapsed + " cpu_ns " + (end - c0) + " main_cpu_ns " + (end - start) + " sink " + sink);
  }

  static void round(Deflater deflater, byte[] input, byte[] output) {
    deflater.reset();
    deflater.setInput(input);
    deflater.finish();
    long written = 0;
    while (!deflater.finished()) written += deflater.deflate(output);
    sink += written;
    OverheadWorkload.round();
  }
}
