package jvmkit.test.walk;

/**
 * Enable and Disable in the live phase, from JNI calls. Threads "early-*" start before Enable,
 * "late-*" after; both must be sampled and reported as themselves. After Disable, the agent's own
 * ThreadStart callback (on the env passed to Enable/Disable) must still fire.
 *
 * <p>Run as a Java agent too (a jar whose manifest names this class as Premain-Class), Enable comes
 * from premain instead, while the VM is still starting (HotSpot does not report the JavaVM yet).
 */
public final class LiveMain {
  /** Enable's result in premain; -1 when premain did not run. */
  private static volatile int premainEnable = -1;

  public static void premain(String options, java.lang.instrument.Instrumentation inst) {
    premainEnable = Agent.enable();
  }

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4;
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    Thread[] early = Work.start("early-", 2, deadline);
    Thread.sleep(300);
    if (premainEnable == -1) {
      check(Agent.enable() == 0, "Enable in the live phase failed");
    } else {
      check(premainEnable == 0, "Enable in premain failed: JVMTI error " + premainEnable);
    }
    Thread[] late = Work.start("late-", 2, deadline);
    Work.runUntil(deadline);
    Work.joinAll(early);
    Work.joinAll(late);
    check(Agent.disable() == 0, "Disable in the live phase failed");
    boolean ok = Agent.checkThreads("early-", 20);
    ok &= Agent.checkThreads("late-", 20);
    ok &= Agent.checkThreads("main", 5);
    check(ok, "thread identity or coverage failed");

    long starts = Agent.agentThreadStarts();
    Thread after = new Thread(() -> {}, "after-disable");
    after.start();
    after.join();
    check(Agent.agentThreadStarts() > starts, "the agent's ThreadStart callback no longer fires after Disable");
    check(Agent.violations() == 0, Agent.violations() + " violations");
    System.out.println("live phase: OK");
  }

  static void check(boolean ok, String message) {
    if (!ok) {
      System.err.println("FAIL: " + message);
      System.exit(1);
    }
  }
}
