package jvmkit.test.walk;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs N worker threads ("worker-0"...) and the main thread on CPU-bound work for S seconds. The
 * agent samples and checks; this program only provides the load.
 * Usage: Workers seconds threads [cpu | cpu-after=FILE]
 *        Workers sampled:MAX_SECONDS threads
 * With sampled:MAX_SECONDS, the workers run until the agent has sampled each of them at its
 * run_moments option's number of moments (see RunLength), at most MAX_SECONDS: a busy host runs
 * them longer instead of giving the agent fewer samples to judge. The main thread works meanwhile.
 * With cpu, SECONDS are of the process's CPU time: what a CPU-time sampler's signals follow, so the
 * agent gets as many as on an idle host (at most 60 s of wall time). With cpu-after=FILE (for a
 * script that attaches an agent first: the JVM must still run when it does, however long that
 * takes on a busy host) they work until FILE exists (at most 120 s, else exit status 1), then for
 * SECONDS of CPU time.
 */
public final class Workers {
  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].startsWith("sampled:")) {
      runSampled(new RunLength(args[0]), args.length > 1 ? Integer.parseInt(args[1]) : 8);
      return;
    }
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 5;
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    if (args.length > 2 && args[2].equals("cpu")) {
      runAfter(null, seconds, threads);
      return;
    }
    if (args.length > 2 && args[2].startsWith("cpu-after=")) {
      runAfter(Path.of(args[2].substring("cpu-after=".length())), seconds, threads);
      return;
    }
    if (args.length > 2) {
      throw new IllegalArgumentException("the third argument is cpu or cpu-after=FILE: " + args[2]);
    }
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    Thread[] workers = Work.start("worker-", threads, deadline);
    Work.runUntil(deadline);
    Work.joinAll(workers);
  }

  static void runSampled(RunLength length, int threads) throws InterruptedException {
    Thread[] workers = Work.startUntilStopped("worker-", threads);
    length.await(Work::computeOnce);
    Work.stop();
    Work.joinAll(workers);
  }

  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  static void runAfter(Path startFile, double cpuSeconds, int threads) throws InterruptedException {
    Thread[] workers = Work.startUntilStopped("worker-", threads);
    long waitDeadline = System.nanoTime() + 120_000_000_000L;
    long nextCheck = 0;
    while (startFile != null) {
      Work.computeOnce();
      long now = System.nanoTime();
      if (now < nextCheck) continue;
      nextCheck = now + 10_000_000L;
      if (Files.exists(startFile)) break;
      if (now > waitDeadline) {
        System.err.println("Workers: " + startFile + " did not appear within 120 s");
        System.exit(1);
      }
    }
    long cpuStart = processCpuNanos();
    long wallDeadline = System.nanoTime() + 60_000_000_000L;
    while (processCpuNanos() - cpuStart < cpuSeconds * 1e9 && System.nanoTime() < wallDeadline) {
      for (int i = 0; i < 20; i++) Work.computeOnce();
    }
    Work.stop();
    Work.joinAll(workers);
  }
}
