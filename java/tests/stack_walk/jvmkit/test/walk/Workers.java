package jvmkit.test.walk;

/**
 * Runs N worker threads ("worker-0"...) and the main thread on CPU-bound work for S seconds. The
 * agent samples and checks; this program only provides the load. Usage: Workers seconds threads
 */
public final class Workers {
  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 5;
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    Thread[] workers = Work.start("worker-", threads, deadline);
    Work.runUntil(deadline);
    Work.joinAll(workers);
  }
}
