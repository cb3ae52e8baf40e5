package jvmkit.test.walk;

/**
 * How long a sampled program's workers run, from its first argument: SECONDS (a fixed time) or
 * sampled:MAX_SECONDS: until the agent has sampled every checked thread at run_moments moments (an
 * agent option; see Agent.fewestMoments), at most MAX_SECONDS. A thread yields moments only while
 * it runs, so a busy host runs the program longer instead of judging fewer samples. The workers
 * poll running(); the main thread calls await().
 */
final class RunLength {
  private final boolean sampled;
  private final double seconds;
  private volatile boolean over;

  RunLength(String arg) {
    sampled = arg.startsWith("sampled:");
    seconds = Double.parseDouble(sampled ? arg.substring("sampled:".length()) : arg);
  }

  boolean running() {
    return !over;
  }

  /** Waits until the run is over, says how long it ran and why it ended, and ends it. */
  void await() throws InterruptedException {
    await(null);
  }

  /**
   * As await(), running WORK (about 10 ms of it) between the checks instead of sleeping: for a
   * calling thread that is sampled too and must stay busy.
   */
  void await(Runnable work) throws InterruptedException {
    long start = System.nanoTime();
    long end = start + (long) (seconds * 1e9);
    long want = sampled ? Agent.optionLong("run_moments", 0) : 0;
    boolean enough = false;
    while (System.nanoTime() < end && !enough) {
      if (work == null) {
        Thread.sleep(10);
      } else {
        for (long until = System.nanoTime() + 10_000_000L; System.nanoTime() < until; ) {
          work.run();
        }
      }
      enough = sampled && Agent.fewestMoments() >= want;
    }
    over = true;
    if (sampled) {
      System.err.printf("RunLength: %.2f s, %s%n", (System.nanoTime() - start) / 1e9,
          enough ? "every checked thread sampled at " + want + " moments"
              : "the time ran out with " + Agent.fewestMoments() + " of " + want + " moments");
    }
  }
}
