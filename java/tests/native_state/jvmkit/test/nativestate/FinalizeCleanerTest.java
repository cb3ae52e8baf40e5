package jvmkit.test.nativestate;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The two ways a class frees its native state when its objects die.
 *  - finalize() calls remove_state_slot (the spec's way): the JNI weak reference still resolves to
 *    an object being finalized, so the entry is found and its state returned.
 *  - java.lang.ref.Cleaner (the modern way): the action cannot reach the object, so it calls the
 *    sweep_state_table extension, which hands the states of dead objects to a callback.
 * Also free_state_table handing over what remains.
 */
public final class FinalizeCleanerTest {
  static long finalizedTable;
  static final AtomicLong FINALIZED = new AtomicLong();
  static final AtomicLong FINALIZED_WRONG = new AtomicLong();

  /** The Classpath pattern: the peer removes its own state when finalized. */
  static final class FinalizedPeer extends Peer {
    @SuppressWarnings({"deprecation", "removal"})
    @Override
    protected void finalize() {
      long s = Native.remove(finalizedTable, this);
      if (s == state()) {
        FINALIZED.incrementAndGet();
      } else {
        FINALIZED_WRONG.incrementAndGet();
      }
    }
  }

  static long cleanedTable;
  static final Cleaner CLEANER = Cleaner.create();
  static final AtomicLong SWEPT = new AtomicLong();
  static final AtomicLong ACTIONS_RUN = new AtomicLong();

  /** The Cleaner pattern: the action holds no reference to the object; it sweeps the table. */
  static final class CleanedPeer extends Peer {
    CleanedPeer() {
      CLEANER.register(this, new Sweep());
    }
  }

  static final class Sweep implements Runnable {
    @Override
    public void run() {
      SWEPT.addAndGet(Native.sweep(cleanedTable));
      ACTIONS_RUN.incrementAndGet();
    }
  }

  public static void main(String[] args) throws Exception {
    int n = 2000;
    finalizedTable = Native.init(FinalizedPeer.class, -1);
    cleanedTable = Native.init(CleanedPeer.class, -1);
    Check.that(finalizedTable != 0 && cleanedTable != 0, "init_state_table");

    for (int i = 0; i < n; i++) {
      FinalizedPeer p = new FinalizedPeer();
      Check.equal(0, Native.set(finalizedTable, p, p.state()), "set_state (finalized)");
      CleanedPeer c = new CleanedPeer();
      Check.equal(0, Native.set(cleanedTable, c, c.state()), "set_state (cleaned)");
    }
    Check.equal(n, Native.size(finalizedTable), "entries (finalized)");
    long handedBefore = Native.handedCount();
    for (int i = 0; i < 500 && (FINALIZED.get() + FINALIZED_WRONG.get() < n || ACTIONS_RUN.get() < n); i++) {
      System.gc();
      System.runFinalization();
      Thread.sleep(10);
    }
    Check.equal(0, FINALIZED_WRONG.get(), "finalize() got the object's own state from remove_state_slot");
    Check.equal(n, FINALIZED.get(), "every finalized object removed its state");
    Check.equal(0, Native.size(finalizedTable), "no entry left after finalization");
    Check.equal(n, SWEPT.get(), "the Cleaner actions swept every dead object's state");
    Check.equal(0, Native.size(cleanedTable), "no entry left after cleaning");
    Check.equal(handedBefore + n, Native.handedCount(), "each swept state handed to the callback once");

    // free_state_table hands the states that remain (of live objects and ids) to the callback.
    Peer[] live = new Peer[10];
    long sum = 0;
    for (int i = 0; i < live.length; i++) {
      live[i] = new FinalizedPeer();
      Native.set(finalizedTable, live[i], live[i].state());
      sum += live[i].state();
    }
    Native.setOid(finalizedTable, null, -7, 0x7008);
    sum += 0x7008;
    long countBefore = Native.handedCount();
    long sumBefore = Native.handedSum();
    long table = finalizedTable;
    finalizedTable = 0;  // finalizers of the live peers now fail cleanly (NULL table)
    Native.free(table);
    Check.equal(countBefore + live.length + 1, Native.handedCount(), "free_state_table hands every state over");
    Check.equal(sumBefore + sum, Native.handedSum(), "free_state_table hands the right states");
    Check.equal(n, ACTIONS_RUN.get(), "every Cleaner action ran (none can touch the freed table)");
    Native.free(cleanedTable);
    Check.pass("FinalizeCleanerTest");
    Runtime.getRuntime().halt(0);  // the live peers' finalizers would throw (NULL table): skip them
  }
}
