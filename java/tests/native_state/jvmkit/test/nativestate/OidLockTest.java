package jvmkit.test.nativestate;

import java.util.concurrent.CountDownLatch;

/**
 * The *_oid calls take LOCK's monitor, so a Java thread inside
 * synchronized (lock) holds them off; with a NULL LOCK (extension) they do not wait for it.
 */
public final class OidLockTest {
  static final long HOLD_MS = 500;

  interface Call {
    void run(long table, Object lock);
  }

  public static void main(String[] args) throws Exception {
    long t = Native.init(Peer.class, -1);
    Native.setOid(t, null, 42, 0x4208);
    check(t, "set_state_oid", (tab, lock) -> Native.setOid(tab, lock, 43, 0x4308));
    check(t, "get_state_oid", (tab, lock) -> Native.getOid(tab, lock, 42));
    check(t, "remove_state_oid", (tab, lock) -> Native.removeOid(tab, lock, 43));
    Check.equal(0x4208, Native.getOid(t, null, 42), "state after the lock tests");

    // The calls leave the monitor as they found it: Java can take it again, and reentrancy works.
    Object lock = new Object();
    synchronized (lock) {
      Native.setOid(t, lock, 44, 0x4408);  // the owner re-enters
      Check.equal(0x4408, Native.getOid(t, lock, 44), "get_state_oid by the lock's owner");
      Check.that(Thread.holdsLock(lock), "the caller still holds the lock after the calls");
    }
    Check.that(!Thread.holdsLock(lock), "the monitor is released");
    Native.free(t);
    Check.pass("OidLockTest");
  }

  /** A holder thread keeps LOCK for HOLD_MS; the call with LOCK must return only after it let go. */
  static void check(long table, String name, Call call) throws Exception {
    Object lock = new Object();
    CountDownLatch held = new CountDownLatch(1);
    long[] releasedAt = new long[1];
    Thread holder = new Thread(() -> {
      synchronized (lock) {
        held.countDown();
        try {
          Thread.sleep(HOLD_MS);
        } catch (InterruptedException e) {
          return;
        }
        releasedAt[0] = System.nanoTime();  // published by the monitor exit below
      }
    });
    holder.start();
    held.await();
    long start = System.nanoTime();
    call.run(table, null);  // NULL LOCK: internal synchronisation only, does not wait
    long nullLockNanos = System.nanoTime() - start;
    call.run(table, lock);
    long returnedAt = System.nanoTime();
    long released;
    synchronized (lock) {
      released = releasedAt[0];
    }
    holder.join();
    Check.that(released != 0 && returnedAt >= released,
        name + " returned before the Java thread released the lock");
    Check.that(nullLockNanos < HOLD_MS * 1_000_000 / 2,
        name + " with a NULL LOCK waited for the lock (" + nullLockNanos / 1_000_000 + " ms)");
  }
}
