package jvmkit.test.hotspot;

/**
 * The program of jvm.hotspot.code_heap: runs a hot loop on two threads named {@code codeheap-busy-N}
 * (the test agent samples each with a CPU-time timer and looks up the interrupted PC in the code
 * heaps) until the agent has made enough look-ups or 30 s have passed, then asks the agent for its
 * verdict. Exits 0 when every check held; the agent prints its counts and what failed.
 */
public final class CodeHeapMain {
  /** Look-ups the agent's signal handler has made so far. */
  static native long lookups();

  /** Prints the agent's counts and returns the number of failed checks. */
  static native int finish();

  private static final long WANTED_LOOKUPS = 1000;
  private static final long MAX_MILLIS = 30_000;

  private static volatile boolean stop;
  private static volatile long sink;

  /** A small method the loop calls: compiled on its own and inlined into the loop. */
  static long step(long x) {
    return x * 6364136223846793005L + 1442695040888963407L;
  }

  static void spin() {
    long x = Thread.currentThread().getId();
    while (!stop) {
      for (int i = 0; i < 1_000_000; i++) {
        x = step(x) ^ (x >>> 7);
      }
      sink += x;
    }
  }

  public static void main(String[] args) throws Exception {
    Thread[] busy = new Thread[2];
    for (int i = 0; i < busy.length; i++) {
      busy[i] = new Thread(CodeHeapMain::spin, "codeheap-busy-" + i);
      busy[i].start();
    }
    long start = System.nanoTime();
    while (lookups() < WANTED_LOOKUPS && (System.nanoTime() - start) / 1_000_000 < MAX_MILLIS) {
      Thread.sleep(50);
    }
    stop = true;
    for (Thread t : busy) {
      t.join();
    }
    System.exit(finish() == 0 ? 0 : 1);
  }
}
