package jvmkit.test.walk;

/** Enable/Disable cycles under sampling load. Usage: CycleMain cycles windowMillis */
public final class CycleMain {
  public static void main(String[] args) throws Exception {
    int cycles = args.length > 0 ? Integer.parseInt(args[0]) : 100;
    int window = args.length > 1 ? Integer.parseInt(args[1]) : 30;
    long deadline = System.nanoTime() + 3_600_000_000_000L;
    Thread[] workers = Work.start("worker-", 4, deadline);
    boolean ok = Agent.cycles(cycles, window);
    System.out.println("cycles: " + (ok ? "OK" : "FAILED"));
    System.exit(ok ? 0 : 1);
  }
}
