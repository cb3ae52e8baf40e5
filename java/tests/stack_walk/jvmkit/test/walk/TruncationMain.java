package jvmkit.test.walk;

/**
 * Stacks of known depth for the depth-limit tests: for each DEPTH in turn, the main thread calls
 * descend until it has exactly DEPTH Java frames (main, DEPTH - 2 frames of descend, spin) and runs a
 * CPU loop in spin until the agent has delivered enough traces of that depth: complete traces of
 * DEPTH frames or, beyond the depth limit, traces truncated at the limit. Enough is run_traces
 * unbiased ones (an agent option, default min_depth_traces) and min_biased_depth_traces biased ones;
 * after SECONDS, what the check wants suffices (min_depth_traces unbiased); after MAX_SECONDS the
 * depth ends anyway (and the check fails). A trace taken there holds DEPTH frames, the last one
 * main, unless the depth limit cut it.
 * How many traces a depth gets in a given time depends on the CPU time the thread and the agent's
 * delivery get; counting the traces makes the run as long as the host needs. A watcher thread asks the agent (not main, whose
 * stack is what is sampled). Usage: TruncationMain seconds max_seconds depth...
 */
public final class TruncationMain {
  static volatile long sink;
  // Set by the watcher when the agent has the traces wanted at the current depth.
  static volatile boolean enough;

  static long descend(int frames, long deadline) {
    if (frames > 1) {
      return descend(frames - 1, deadline) + 1;
    }
    return spin(deadline);
  }

  // No calls but System.nanoTime, and that only every 100,000 iterations: samples land in this frame.
  static long spin(long deadline) {
    long s = 0;
    while (!enough && System.nanoTime() < deadline) {
      for (int i = 0; i < 100_000; i++) {
        s += (s >>> 3) ^ (i * 13L);
      }
    }
    return s;
  }

  /**
   * Polls the agent until it has delivered the traces wanted of a stack of DEPTH frames: run_traces
   * (or, after SECONDS, min_depth_traces) unbiased ones and min_biased_depth_traces biased ones.
   */
  static Thread watch(int depth, double seconds) {
    final long wantChecked = Agent.optionLong("min_depth_traces", 100);
    final long wantRun = Agent.optionLong("run_traces", wantChecked);
    final long wantBiased = Agent.optionLong("min_biased_depth_traces", 0);
    final long unbiasedBefore = Agent.depthTraces(depth, false);
    final long biasedBefore = Agent.depthTraces(depth, true);
    final long soft = System.nanoTime() + (long) (seconds * 1e9);
    Thread watcher = new Thread(() -> {
      while (!enough) {
        long unbiased = Agent.depthTraces(depth, false) - unbiasedBefore;
        long want = System.nanoTime() < soft ? wantRun : wantChecked;
        if (unbiased >= want && Agent.depthTraces(depth, true) - biasedBefore >= wantBiased) {
          enough = true;
        }
        try {
          Thread.sleep(5);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "depth watcher");
    watcher.setDaemon(true);
    watcher.start();
    return watcher;
  }

  public static void main(String[] args) throws InterruptedException {
    double seconds = Double.parseDouble(args[0]);
    double maxSeconds = Double.parseDouble(args[1]);
    for (int i = 2; i < args.length; i++) {
      int depth = Integer.parseInt(args[i]);
      if (depth < 3) {
        throw new IllegalArgumentException("a depth is at least 3 frames (main, descend, spin): " + depth);
      }
      enough = false;
      Thread watcher = watch(depth, seconds);
      long start = System.nanoTime();
      long deadline = start + (long) (maxSeconds * 1e9);
      sink += descend(depth - 2, deadline);
      boolean reached = enough;
      enough = true;
      watcher.interrupt();
      watcher.join();
      System.err.printf("TruncationMain: depth %d for %.2f s%s%n", depth, (System.nanoTime() - start) / 1e9,
          reached ? "" : " (the traces wanted did not come in time)");
    }
  }
}
