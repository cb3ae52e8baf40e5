package jvmkit.test.walk;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.function.Supplier;
import java.util.zip.Adler32;
import java.util.zip.CRC32;

/**
 * Loops whose samples often find a Java thread running the JVM's own code: the allocation slow
 * path (a runtime stub calls the VM, which leaves the frame anchor unwalkable), checksum and digest
 * intrinsics, the clock's leaf calls, megamorphic interface calls through itable stubs, and
 * arraycopy under StringBuilder.delete. One thread per workload, named "worker-WORKLOAD"; each
 * runs its class's hotLoop(), which the test keeps out of line
 * (-XX:CompileCommand=dontinline,*::hotLoop), so that every correct trace of a worker holds a
 * hotLoop frame.
 *
 * <p>Usage: InsideVmMain seconds|sampled:max_seconds [workload...] [safepoints] (default: all of
 * alloc checksum clock suppliers builder; the run's length: see RunLength). With safepoints, a
 * thread named "safepoints" dumps every thread's stack over and over (a safepoint operation each
 * time): the workers spend much of the run held at their safepoint polls, waiting inside the VM.
 */
public final class InsideVmMain {
  static volatile long sink;
  static final String[] ALL = {"alloc", "checksum", "clock", "suppliers", "builder"};

  /** Short-lived arrays and boxes: TLAB refills and young collections, taken from compiled code. */
  static final class Alloc {
    static final Object[] KEEP = new Object[64];

    static long hotLoop(int n) {
      long s = 0;
      for (int i = 0; i < n; i++) {
        byte[] bytes = new byte[16 + (i & 1023)];
        KEEP[i & 63] = bytes;
        Double boxed = i * 0.5;
        KEEP[(i + 7) & 63] = boxed;
        s += bytes.length + (long) boxed.doubleValue();
      }
      return s;
    }
  }

  /** CRC32, Adler32, MD5, SHA-256 and Base64 over arrays of every length up to 1 KiB. */
  static final class Checksum {
    static final byte[][] INPUTS = new byte[1025][];

    static {
      java.util.Random random = new java.util.Random(42);
      for (int i = 0; i < INPUTS.length; i++) {
        INPUTS[i] = new byte[i];
        random.nextBytes(INPUTS[i]);
      }
    }

    static long hotLoop(int n) throws Exception {
      long s = 0;
      MessageDigest md5 = MessageDigest.getInstance("MD5");
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (int i = 0; i < n; i++) {
        byte[] input = INPUTS[i % INPUTS.length];
        CRC32 crc = new CRC32();
        crc.update(input, 0, input.length);
        Adler32 adler = new Adler32();
        adler.update(input, 0, input.length);
        s += crc.getValue() + adler.getValue();
        s += md5.digest(input)[0] + sha.digest(input)[1];
        s += Base64.getEncoder().encode(input).length;
      }
      return s;
    }
  }

  /** The clocks: leaf calls into the JVM and the vDSO, with no frame anchor. */
  static final class Clock {
    static long hotLoop(int n) {
      long s = 0;
      for (int i = 0; i < n; i++) {
        s += System.currentTimeMillis() + (System.nanoTime() & 1);
      }
      return s;
    }
  }

  /** Four lambdas behind one interface call site: itable stubs and boxing. */
  static final class Suppliers {
    static final Supplier<?>[] SUPPLIERS = {() -> 7, () -> 2.5, () -> "text", () -> Boolean.TRUE};

    static long hotLoop(int n) {
      long s = 0;
      Supplier<?>[] suppliers = SUPPLIERS;
      for (int i = 0; i < n; i++) {
        s += suppliers[i & 3].get().hashCode();
      }
      return s;
    }
  }

  /** StringBuilder.delete at the front: arraycopy stubs on a buffer of a few KiB. */
  static final class Builder {
    static long hotLoop(int n) {
      StringBuilder sb = new StringBuilder();
      byte[] text = "the quick brown fox jumps over the lazy dog ".getBytes(StandardCharsets.ISO_8859_1);
      for (int i = 0; i < 4096; i++) {
        sb.append((char) text[i % text.length]);
      }
      long s = 0;
      for (int i = 0; i < n; i++) {
        sb.delete(0, 1);
        sb.append((char) text[i % text.length]);
        s += sb.length();
      }
      return s;
    }
  }

  static void run(String workload, RunLength length) throws Exception {
    int kind = java.util.List.of(ALL).indexOf(workload);
    if (kind < 0) {
      throw new IllegalArgumentException("unknown workload " + workload);
    }
    long s = 0;
    while (length.running()) {
      switch (kind) {
        case 0 -> s += Alloc.hotLoop(200_000);
        case 1 -> s += Checksum.hotLoop(2_000);
        case 2 -> s += Clock.hotLoop(200_000);
        case 3 -> s += Suppliers.hotLoop(400_000);
        default -> s += Builder.hotLoop(20_000);
      }
    }
    sink += s;
  }

  public static void main(String[] args) throws Exception {
    RunLength length = new RunLength(args.length > 0 ? args[0] : "5");
    java.util.List<String> named = new java.util.ArrayList<>(java.util.Arrays.asList(args));
    if (!named.isEmpty()) {
      named.remove(0);  // the run's length
    }
    boolean safepoints = named.remove("safepoints");
    String[] workloads = named.isEmpty() ? ALL : named.toArray(new String[0]);
    // Every workload class loaded and initialised here, so that no worker's samples land in class
    // loading (its traces would rightly lack hotLoop).
    sink += Alloc.hotLoop(1) + Checksum.hotLoop(1) + Clock.hotLoop(1) + Suppliers.hotLoop(1) + Builder.hotLoop(1);
    Thread[] threads = new Thread[workloads.length];
    for (int i = 0; i < workloads.length; i++) {
      String workload = workloads[i];
      threads[i] = new Thread(() -> {
        try {
          run(workload, length);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, "worker-" + workload);
      threads[i].setDaemon(true);  // a main thread that fails ends the run
      threads[i].start();
    }
    if (safepoints) {
      Thread dumper = new Thread(() -> {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        while (length.running()) {
          sink += mx.dumpAllThreads(false, false).length;
        }
      }, "safepoints");
      dumper.setDaemon(true);
      dumper.start();
    }
    length.await();
    for (Thread t : threads) {
      t.join();
    }
  }
}
