package jvmkit.test.context;

import org.jvmkit.JvmkitContext;

/**
 * Request types that burn known shares of CPU under context labels: endpoint=/a 50 %, /b 30 %,
 * /c 20 %, by iteration counts of one loop (the same code for all three, so that only the labels
 * tell them apart). /a's requests also run inside an OpenTelemetry span with fixed ids.
 *
 * <p>Usage: LabelShares SECONDS [THREADS]: each thread runs until it has used SECONDS of CPU time
 * (so that a loaded machine gives as many CPU samples as an idle one, only later), at most 30
 * times SECONDS of wall time. Exits 2 when the agent is not active (a profile without labels would
 * make the checks meaningless).
 */
public final class LabelShares {
  static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String SPAN_ID = "00f067aa0ba902b7";
  static final String[] ENDPOINTS = {"/a", "/b", "/c"};
  static final int[] WEIGHTS = {5, 3, 2};
  static volatile long sink;

  private LabelShares() {}

  // The loop every request runs; N rounds of an LCG the JIT cannot fold.
  static long work(int n) {
    long x = n;
    for (int i = 0; i < n; i++) {
      x = (x * 6364136223846793005L + 1442695040888963407L) ^ (x >>> 13);
    }
    return x;
  }

  @SuppressWarnings("try")
  static void serve(long cpuNanos, long deadline) {
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    long cpuEnd = threads.getCurrentThreadCpuTime() + cpuNanos;
    while (threads.getCurrentThreadCpuTime() < cpuEnd && System.nanoTime() < deadline) {
      for (int r = 0; r < ENDPOINTS.length; r++) {
        try (JvmkitContext.Scope request = JvmkitContext.with("endpoint", ENDPOINTS[r])) {
          if (r == 0) {
            try (JvmkitContext.Scope span = JvmkitContext.withSpan(TRACE_ID, SPAN_ID)) {
              for (int k = 0; k < WEIGHTS[r]; k++) {
                sink += work(20_000);
              }
            }
          } else {
            for (int k = 0; k < WEIGHTS[r]; k++) {
              sink += work(20_000);
            }
          }
        }
      }
    }
  }

  public static void main(String[] args) throws InterruptedException {
    if (!JvmkitContext.isActive()) {
      System.err.println("LabelShares: the jvmkit agent is not active");
      System.exit(2);
    }
    double seconds = Double.parseDouble(args[0]);
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    long cpuNanos = (long) (seconds * 1e9);
    long deadline = System.nanoTime() + 30 * cpuNanos;
    Thread[] workers = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      workers[t] = new Thread(() -> serve(cpuNanos, deadline), "worker-" + t);
      workers[t].start();
    }
    for (Thread w : workers) {
      w.join();
    }
  }
}
