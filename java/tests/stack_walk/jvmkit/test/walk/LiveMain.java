package jvmkit.test.walk;

/**
 * Enable and Disable in the live phase, from JNI calls. Threads "early-*" start before Enable,
 * "late-*" after; both must be sampled and reported as themselves. After Disable, the agent's own
 * ThreadStart callback (on the env passed to Enable/Disable) must still fire.
 */
public final class LiveMain {
  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4;
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    Thread[] early = Work.start("early-", 2, deadline);
    Thread.sleep(300);
    check(Agent.enable() == 0, "Enable in the live phase failed");
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
