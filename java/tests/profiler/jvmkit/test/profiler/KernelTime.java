package jvmkit.test.profiler;

import java.io.FileInputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Time in the kernel with a known share: the main thread alternates between reading /dev/urandom
 * (the kernel generates the bytes: its CPU time is system time, under the read system call) and a
 * Java loop, in rounds of equal length, and prints two truths a profile's kernel frames are checked
 * against: the CPU time its reads took, measured around each (exact), and its own user and system
 * CPU time from /proc/thread-self/stat (counted in clock ticks: a statistic). It runs until
 * the thread has used CPU_SECONDS of CPU time (at most ten times that in wall time), so that a
 * profile has as many samples of it on a busy machine as on an idle one.
 *
 * <p>Usage: KernelTime CPU_SECONDS. Prints "kernel truth: user U ticks, system S ticks" and "read
 * truth: R of T ns" (CPU time inside readRandom, of the loop's).
 */
public final class KernelTime {
  static long sink;

  public static void main(String[] args) throws IOException {
    double seconds = Double.parseDouble(args[0]);
    byte[] buffer = new byte[64 * 1024];
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long cpuEnd = threads.getCurrentThreadCpuTime() + (long) (seconds * 1e9);
    long wallEnd = System.nanoTime() + (long) (10 * seconds * 1e9);
    long[] start = ticks();
    long reading = 0;
    long loopStart = threads.getCurrentThreadCpuTime();
    try (FileInputStream random = new FileInputStream("/dev/urandom")) {
      for (long now = loopStart; now < cpuEnd && System.nanoTime() < wallEnd; ) {
        readRandom(random, buffer);
        long read = threads.getCurrentThreadCpuTime();
        reading += read - now;
        sink += spin(buffer);
        now = threads.getCurrentThreadCpuTime();
      }
    }
    long loop = threads.getCurrentThreadCpuTime() - loopStart;
    long[] stop = ticks();
    System.out.println("kernel truth: user " + (stop[0] - start[0]) + " ticks, system " + (stop[1] - start[1])
        + " ticks, sink " + sink);
    System.out.println("read truth: " + reading + " of " + loop + " ns");
  }

  // About 2 ms of the kernel's random number generator.
  static void readRandom(FileInputStream random, byte[] buffer) throws IOException {
    for (int i = 0; i < 8; i++) {
      int n = random.read(buffer);
      if (n <= 0) throw new IOException("/dev/urandom gave " + n);
    }
  }

  // About as long in Java.
  static long spin(byte[] buffer) {
    long h = 0;
    for (int round = 0; round < 24; round++) {
      for (byte b : buffer) h = h * 31 + b;
    }
    return h;
  }

  // This thread's user and system CPU time in clock ticks (fields 14 and 15 of its stat line).
  static long[] ticks() throws IOException {
    String stat = Files.readString(Path.of("/proc/thread-self/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return new long[] {Long.parseLong(fields[11]), Long.parseLong(fields[12])};
  }
}
