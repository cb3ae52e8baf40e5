package jvmkit.test.nativestate;

import java.lang.ref.WeakReference;

/**
 * Identity-hash collisions. Run with -XX:+UnlockExperimentalVMOptions -XX:hashCode=2, which makes every
 * identity hash 1: distinct live objects never share state, and a new object never sees the state
 * of a dead one with the same hash.
 */
public final class CollisionTest {
  public static void main(String[] args) {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    long t = Native.init(Peer.class, -1);
    Check.that(t != 0, "init_state_table");

    Peer[] peers = new Peer[n];
    for (int i = 0; i < n; i++) {
      peers[i] = new Peer();
    }
    Check.equal(peers[0].native_state, peers[n - 1].native_state, "identity hashes collide (-XX:hashCode=2)");
    for (Peer p : peers) {
      Check.equal(0, Native.get(t, p), "no state before set_state (object " + p.id + ")");
      Check.equal(0, Native.set(t, p, p.state()), "set_state");
    }
    for (Peer p : peers) {
      Check.equal(p.state(), Native.get(t, p), "object " + p.id + " sees its own state");
    }
    Check.equal(n, Native.size(t), "one entry per object");
    for (int i = 0; i < n; i += 2) {
      Check.equal(peers[i].state(), Native.remove(t, peers[i]), "remove_state_slot returns the object's state");
    }
    for (int i = 0; i < n; i++) {
      long expected = i % 2 == 0 ? 0 : peers[i].state();
      Check.equal(expected, Native.get(t, peers[i]), "after removing every other object, object " + peers[i].id);
    }

    // Objects die with their states still set: new objects with the same hash must not see them.
    int dead = 0;
    WeakReference<Peer> probe = new WeakReference<>(peers[1]);
    for (int i = 1; i < n; i += 2) {
      peers[i] = null;
      dead++;
    }
    Check.gcUntilCleared(probe, "dead peer");
    Peer[] fresh = new Peer[n / 2];
    for (int i = 0; i < fresh.length; i++) {
      fresh[i] = new Peer();
      Check.equal(0, Native.get(t, fresh[i]), "a new object never sees the state of a dead one");
      Check.equal(0, Native.remove(t, fresh[i]), "nor removes it");
    }
    for (int i = 0; i < fresh.length; i++) {
      Check.equal(0, Native.set(t, fresh[i], fresh[i].state()), "set_state on a new object");
    }
    for (Peer p : fresh) {
      Check.equal(p.state(), Native.get(t, p), "new object " + p.id + " sees its own state");
    }
    long countBefore = Native.handedCount();
    int swept = Native.sweep(t);
    Check.equal(dead, swept, "sweep_state_table finds every dead object");
    Check.equal(countBefore + dead, Native.handedCount(), "and hands each state to the callback");
    Check.equal(fresh.length, Native.size(t), "live entries remain");
    for (Peer p : fresh) {
      Check.equal(p.state(), Native.get(t, p), "after the sweep, object " + p.id);
    }
    Native.free(t);
    Check.pass("CollisionTest n=" + n);
  }
}
