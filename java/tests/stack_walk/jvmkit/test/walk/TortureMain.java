package jvmkit.test.walk;

import java.io.InputStream;
import java.lang.reflect.Method;

/**
 * Everything at once while the agent samples every worker at 1 kHz.
 *
 * <ul>
 *   <li>N workers ("worker-i") recurse about DEPTH frames deep, then run rounds of a freshly
 *       loaded Payload class (its loader is dropped: classes unload continuously), its branchy()
 *       compiled without its rare branch and then called with it (deoptimization storms), and
 *       Math.log (intrinsic stubs);
 *   <li>a churn thread starts and joins short-lived threads ("churn-i") continuously;
 *   <li>the main thread forces a GC every 200 ms.
 * </ul>
 *
 * Usage: TortureMain seconds [workers] [depth] [unloading=N]
 *
 * <p>With unloading=N the run goes on past SECONDS until the agent has seen N samples of code in
 * classes that unload (Agent.unloadingSamples), at most 60 s more: a busy host gives the agent's
 * delivery thread less CPU, and it would judge fewer.
 */
public final class TortureMain {
  static volatile long sink;
  /** When the workers and the churn thread stop (System.nanoTime): moved by main. */
  static volatile long deadline = Long.MAX_VALUE;

  static long down(int depth) throws ReflectiveOperationException {
    if (depth > 0) {
      // Two alternating methods, so that deep stacks are not a single repeated frame.
      return (depth & 1) == 0 ? down(depth - 1) + 1 : across(depth - 1) + 2;
    }
    return rounds();
  }

  static long across(int depth) throws ReflectiveOperationException {
    return down(depth) ^ 1;
  }

  static long rounds() throws ReflectiveOperationException {
    long s = 0;
    for (int round = 0; round < 20 && System.nanoTime() < deadline; round++) {
      Class<?> c = new UnloadMain.OneShotLoader().loadClass("jvmkit.test.walk.Payload");
      Method run = c.getMethod("run", int.class);
      Method branchy = c.getMethod("branchy", int.class, boolean.class);
      for (int i = 0; i < 5; i++) {
        s += (Long) run.invoke(null, 20_000);
        s += (Long) branchy.invoke(null, 20_000, false);
      }
      s += (Long) branchy.invoke(null, 20_000, true);
      for (int i = 1; i < 20_000; i++) {
        s += (long) Math.log(i);
      }
    }
    return s;
  }

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 60;
    int workers = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    int depth = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
    try (InputStream in = UnloadMain.class.getResourceAsStream("Payload.class")) {
      UnloadMain.payloadBytes = in.readAllBytes();
    }
    if (args.length > 3 && !args[3].startsWith("unloading=")) {
      throw new IllegalArgumentException("the fourth argument is unloading=N: " + args[3]);
    }
    long unloading = args.length > 3 ? Long.parseLong(args[3].substring("unloading=".length())) : 0;
    long start = System.nanoTime();
    long end = start + (long) (seconds * 1e9);
    Thread[] threads = new Thread[workers];
    for (int i = 0; i < workers; i++) {
      int jitter = i * 7;
      threads[i] =
          new Thread(
              null,
              () -> {
                try {
                  while (System.nanoTime() < deadline) {
                    sink += down(depth - jitter);
                  }
                } catch (ReflectiveOperationException e) {
                  throw new RuntimeException(e);
                }
              },
              "worker-" + i,
              64L << 20);
      threads[i].start();
    }
    Thread churn =
        new Thread(
            () -> {
              long n = 0;
              while (System.nanoTime() < deadline) {
                Thread t = new Thread(() -> sink += Work.compute(4, 2_000), "churn-" + n++);
                t.start();
                try {
                  t.join();
                } catch (InterruptedException e) {
                  return;
                }
              }
              System.out.println("threads started and ended: " + n);
            },
            "churn");
    churn.start();
    long latest = end + 60_000_000_000L;
    for (long now = start; now < end || (unloading > 0 && now < latest && Agent.unloadingSamples() < unloading);
         now = System.nanoTime()) {
      Thread.sleep(200);
      System.gc();
    }
    deadline = System.nanoTime();
    Work.joinAll(threads);
    churn.join();
  }
}
