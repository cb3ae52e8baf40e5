package jvmkit.test.context;

import java.util.concurrent.locks.LockSupport;
import org.jvmkit.JvmkitContext;

/**
 * Labels on virtual threads must follow the virtual thread, not its carrier: VTHREADS virtual
 * threads in four groups, each burning CPU in its group's own method (burn0..burn3) under the
 * label group=gN, parking and yielding between and inside its scopes so that it moves from carrier
 * to carrier. In the profile every sample under [group=gN] must be in burnN (GroupCheck).
 *
 * <p>Usage: VirtualLabels SECONDS VTHREADS. Exits 2 when the agent is not active.
 */
public final class VirtualLabels {
  static volatile long sink;

  private VirtualLabels() {}

  static long burn0(int n) {
    return work(n);
  }

  static long burn1(int n) {
    return work(n);
  }

  static long burn2(int n) {
    return work(n);
  }

  static long burn3(int n) {
    return work(n);
  }

  // The same loop as LabelShares.work (this folder is compiled apart from it).
  static long work(int n) {
    long x = n;
    for (int i = 0; i < n; i++) {
      x = (x * 6364136223846793005L + 1442695040888963407L) ^ (x >>> 13);
    }
    return x;
  }

  static long burn(int group, int n) {
    switch (group) {
      case 0:
        return burn0(n);
      case 1:
        return burn1(n);
      case 2:
        return burn2(n);
      default:
        return burn3(n);
    }
  }

  @SuppressWarnings("try")
  static void run(int group, long deadline) {
    String label = "g" + group;
    while (System.nanoTime() < deadline) {
      try (JvmkitContext.Scope scope = JvmkitContext.with("group", label)) {
        sink += burn(group, 20_000);
        Thread.yield();  // unmounts: the rest of the scope may run on another carrier
        sink += burn(group, 20_000);
        LockSupport.parkNanos(10_000);
        sink += burn(group, 20_000);
      }
      Thread.yield();
    }
  }

  public static void main(String[] args) throws InterruptedException {
    if (!JvmkitContext.isActive()) {
      System.err.println("VirtualLabels: the jvmkit agent is not active");
      System.exit(2);
    }
    double seconds = Double.parseDouble(args[0]);
    int count = Integer.parseInt(args[1]);
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    Thread[] threads = new Thread[count];
    for (int i = 0; i < count; i++) {
      int group = i % 4;
      threads[i] = Thread.ofVirtual().name("v" + i).start(() -> run(group, deadline));
    }
    for (Thread t : threads) {
      t.join();
    }
  }
}
