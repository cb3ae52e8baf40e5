package jvmkit.test.walk;

import java.util.Random;

/**
 * C between Java frames, with known shares of time in C (tests/stack_walk/native/upcall_jni.c,
 * loaded from the path in system property jvmkit.upcall.lib). The main thread calls, for the given
 * seconds, main -> a -> native n1 -> (C: mid, CallStaticVoidMethod) -> b -> native n2 -> (C: leaf),
 * in rounds of three phases: leaf spins in its own loop for about 2 ms, then works inside libc's
 * qsort for about 1 ms, then inside memcpy for about 1 ms. Each phase's length is drawn from
 * [0.5, 1.5) times that (seeded), so that the rounds keep no fixed rhythm a sampler could lock
 * onto. The library measures the wall time leaf spent per phase (the truth of the shares, about
 * 50 / 25 / 25 %); it is printed at the end. The loop starts 200 ms after the library was first
 * called, which is 200 ms after it was loaded. Usage: UpcallMain seconds
 */
public final class UpcallMain {
  static final int SPIN = 0;
  static final int QSORT = 1;
  static final int MEMCPY = 2;

  static native void n1(int phase, long nanos);

  static native void n2(int phase, long nanos);

  static native long phaseNanos(int phase);

  static void a(int phase, long nanos) {
    n1(phase, nanos);
  }

  /** Called by the library's mid, through JNI. */
  static void b(int phase, long nanos) {
    n2(phase, nanos);
  }

  static long jitter(Random random, long nanos) {
    return (long) (nanos * (0.5 + random.nextDouble()));
  }

  public static void main(String[] args) throws InterruptedException {
    System.load(System.getProperty("jvmkit.upcall.lib"));
    // The measured loop starts 200 ms after each of two things that end native runs in markers for
    // a while, whose windows are not this test's subject: jvmkit's watcher builds the library's
    // unwind table within ~50 ms of the load (until then: unprepared_library), and the first calls
    // make n1's and n2's native wrappers, which jvmkit's code map learns of from CompiledMethodLoad
    // events that HotSpot's service thread posts later (until then C returning into them cannot
    // join them).
    Thread.sleep(200);
    a(SPIN, 0);
    a(QSORT, 0);
    a(MEMCPY, 0);
    Thread.sleep(200);
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
    Random random = new Random(7);
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    int rounds = 0;
    while (System.nanoTime() < deadline) {
      a(SPIN, jitter(random, 2_000_000));
      a(QSORT, jitter(random, 1_000_000));
      a(MEMCPY, jitter(random, 1_000_000));
      rounds++;
    }
    long spin = phaseNanos(SPIN), qsort = phaseNanos(QSORT), memcpy = phaseNanos(MEMCPY);
    double all = Math.max(1, spin + qsort + memcpy);
    System.out.printf("UpcallMain: %d rounds; leaf spun %.0f ms (%.1f%%), in qsort %.0f ms (%.1f%%), in memcpy %.0f ms"
        + " (%.1f%%)%n", rounds, spin / 1e6, 100 * spin / all, qsort / 1e6, 100 * qsort / all, memcpy / 1e6,
        100 * memcpy / all);
  }
}
