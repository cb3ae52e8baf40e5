package jvmkit.test.profiler;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.SplittableRandom;
import java.util.function.LongUnaryOperator;

/**
 * A workload whose stacks never repeat, for the profile's size limit: each descent goes 20 to 40
 * calls deep through sixteen small methods, each picking the next one at random, and does a little
 * CPU work at the leaf (about 10 us), so nearly every sample is a stack never seen before (16^20
 * and more of them). Every HIDDEN_CLASS_MS (default 200, 0: never) the leaf work moves to a new
 * hidden class (the bytes of {@link Leaf}, defined again with Lookup.defineHiddenClass, not held
 * strongly so it can be unloaded), so new methods keep appearing too.
 * Usage: DistinctStacks SECONDS[cpu] [HIDDEN_CLASS_MS]: with the suffix cpu, SECONDS of the
 * process's CPU time (its JIT and GC threads' too: the JVM's warm-up is CPU work, so a busy host
 * stretches it in wall time but not in CPU time), at most 5 x SECONDS (and at least 240 s) of wall
 * time.
 */
public final class DistinctStacks {
  static long sink;
  static final SplittableRandom random = new SplittableRandom(7);
  static LongUnaryOperator leaf = new Leaf();

  public static void main(String[] args) throws Throwable {
    boolean cpu = args[0].endsWith("cpu");
    double seconds = Double.parseDouble(cpu ? args[0].substring(0, args[0].length() - 3) : args[0]);
    long hiddenEveryNanos = (args.length > 1 ? Long.parseLong(args[1]) : 200) * 1_000_000L;
    byte[] leafBytes = null;
    if (hiddenEveryNanos > 0) {
      try (InputStream in = DistinctStacks.class.getResourceAsStream("DistinctStacks$Leaf.class")) {
        leafBytes = in.readAllBytes();
      }
    }
    long start = System.nanoTime();
    long end = start + (long) ((cpu ? Math.max(240, 5 * seconds) : seconds) * 1e9);
    long cpuEnd = cpu ? processCpuNanos() + (long) (seconds * 1e9) : Long.MAX_VALUE;
    long nextHidden = start + hiddenEveryNanos;
    long descents = 0;
    int hiddenClasses = 0;
    while (System.nanoTime() < end && (!cpu || processCpuNanos() < cpuEnd)) {
      for (int i = 0; i < 100; i++) sink += call(random.nextInt(16), 20 + random.nextInt(21), sink);
      descents += 100;
      if (leafBytes != null && System.nanoTime() >= nextHidden) {
        leaf = defineLeaf(leafBytes);
        hiddenClasses++;
        nextHidden += hiddenEveryNanos;
      }
    }
    System.out.println("descents " + descents + ", hidden classes " + hiddenClasses + ", leaf "
        + leaf.getClass().getName() + ", sink " + sink);
  }

  // Looked up once: ManagementFactory's lookup runs stream pipelines, which the JIT compiler then
  // compiles (C2) seconds into the run, growing the JVM's own memory late (glibc keeps the freed
  // compiler arenas resident), which the memory checks of continuous mode would take for the
  // agent's (measured 2026-12-05 on JDK 25: +4 MB steps at 40 % of the run, with no agent).
  static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  static long processCpuNanos() {
    return OS.getProcessCpuTime();
  }

  /** A new hidden class from BYTES (Leaf's class file) and an instance of it. */
  static LongUnaryOperator defineLeaf(byte[] bytes) throws Throwable {
    MethodHandles.Lookup lookup = MethodHandles.lookup().defineHiddenClass(bytes, true);
    return (LongUnaryOperator)
        lookup.findConstructor(lookup.lookupClass(), MethodType.methodType(void.class)).invoke();
  }

  /** Calls method WHICH of the sixteen; DEPTH calls more follow before the leaf. */
  static long call(int which, int depth, long x) {
    switch (which) {
      case 0: return m0(depth, x);
      case 1: return m1(depth, x);
      case 2: return m2(depth, x);
      case 3: return m3(depth, x);
      case 4: return m4(depth, x);
      case 5: return m5(depth, x);
      case 6: return m6(depth, x);
      case 7: return m7(depth, x);
      case 8: return m8(depth, x);
      case 9: return m9(depth, x);
      case 10: return m10(depth, x);
      case 11: return m11(depth, x);
      case 12: return m12(depth, x);
      case 13: return m13(depth, x);
      case 14: return m14(depth, x);
      default: return m15(depth, x);
    }
  }

  static long next(int depth, long x) {
    return depth == 0 ? leaf.applyAsLong(x) : call(random.nextInt(16), depth - 1, x);
  }

  static long m0(int depth, long x) { return next(depth, x + 1); }
  static long m1(int depth, long x) { return next(depth, x + 2); }
  static long m2(int depth, long x) { return next(depth, x + 3); }
  static long m3(int depth, long x) { return next(depth, x + 4); }
  static long m4(int depth, long x) { return next(depth, x + 5); }
  static long m5(int depth, long x) { return next(depth, x + 6); }
  static long m6(int depth, long x) { return next(depth, x + 7); }
  static long m7(int depth, long x) { return next(depth, x + 8); }
  static long m8(int depth, long x) { return next(depth, x + 9); }
  static long m9(int depth, long x) { return next(depth, x + 10); }
  static long m10(int depth, long x) { return next(depth, x + 11); }
  static long m11(int depth, long x) { return next(depth, x + 12); }
  static long m12(int depth, long x) { return next(depth, x + 13); }
  static long m13(int depth, long x) { return next(depth, x + 14); }
  static long m14(int depth, long x) { return next(depth, x + 15); }
  static long m15(int depth, long x) { return next(depth, x + 16); }

  /**
   * The leaf work, about 10 us. Its class file is defined again and again as a hidden class: it
   * must stay self-contained (a hidden class is not a nestmate of DistinctStacks).
   */
  public static final class Leaf implements LongUnaryOperator {
    public Leaf() {}

    @Override
    public long applyAsLong(long x) {
      for (int i = 0; i < 4_000; i++) {
        x = x * 6364136223846793005L + 1442695040888963407L;
        x ^= x >>> 29;
      }
      return x;
    }
  }
}
