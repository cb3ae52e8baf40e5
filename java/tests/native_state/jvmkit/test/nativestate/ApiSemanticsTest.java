package jvmkit.test.nativestate;

/** Every success and error case of the spec's functions, as the header says. */
public final class ApiSemanticsTest {
  static final class NoField {}

  static final class LongField {
    final long native_state = System.identityHashCode(this);
  }

  static final class StaticField {
    static int native_state;
  }

  static final class ObjectField {
    final Object native_state = null;
  }

  public static void main(String[] args) {
    badFields();
    badSizes();
    anySizeWorksAndGrows();
    highLevelBasics();
    argumentErrors();
    pendingExceptionOnEntry();
    objectIds();
    Check.pass("ApiSemanticsTest");
  }

  static void badFields() {
    for (Class<?> c : new Class<?>[] {NoField.class, LongField.class, StaticField.class, ObjectField.class}) {
      for (int size : new int[] {-1, 13}) {
        Check.throwsPending(NoSuchFieldError.class, () -> Native.init(c, size), "init on " + c.getName());
        Check.equal(0, Native.lastResult(), "init on " + c.getName() + " returns NULL");
      }
    }
    Check.throwsPending(NullPointerException.class, () -> Native.init(null, 5), "init(NULL class)");
    Check.equal(0, Native.lastResult(), "init(NULL class) returns NULL");
  }

  static void badSizes() {
    for (int size : new int[] {0, -2, -97, Integer.MIN_VALUE}) {
      Check.throwsPending(IllegalArgumentException.class, () -> Native.init(Peer.class, size),
          "init_state_table_with_size(" + size + ")");
      Check.equal(0, Native.lastResult(), "size " + size + " returns NULL");
    }
  }

  static void anySizeWorksAndGrows() {
    for (int size : new int[] {1, 2, 4, 100, 97, 1 << 16}) {
      long t = Native.init(Peer.class, size);
      Check.that(t != 0, "size " + size + " creates a table");
      Peer[] peers = new Peer[1000];
      for (int i = 0; i < peers.length; i++) {
        peers[i] = new Peer();
        Check.equal(0, Native.set(t, peers[i], peers[i].state()), "set_state in a table of size " + size);
      }
      for (Peer p : peers) {
        Check.equal(p.state(), Native.get(t, p), "get_state in a table of size " + size);
      }
      Check.equal(1000, Native.size(t), "entries in a table of size " + size);
      Native.free(t);
    }
  }

  static void highLevelBasics() {
    long t = Native.init(Peer.class, -1);
    Check.that(t != 0, "init_state_table");
    Peer a = new Peer();
    SubPeer b = new SubPeer();
    Check.equal(0, Native.get(t, a), "no state before set_state");
    Check.equal(0, Native.remove(t, a), "remove_state_slot without a state returns NULL");
    Check.equal(0, Native.set(t, a, 0x1008), "set_state returns 0");
    Check.equal(0, Native.set(t, b, 0x2008), "set_state on a subclass instance returns 0");
    Check.equal(0x1008, Native.get(t, a), "get_state");
    Check.equal(0x2008, Native.get(t, b), "get_state of a subclass instance");
    Check.equal(0, Native.set(t, a, 0x3008), "set_state again replaces");
    Check.equal(0x3008, Native.get(t, a), "get_state after replacing");
    Check.equal(2, Native.size(t), "replacing adds no entry");
    Check.equal(0x3008, Native.remove(t, a), "remove_state_slot returns the state");
    Check.equal(0, Native.get(t, a), "get_state after remove_state_slot returns NULL");
    Check.equal(0, Native.remove(t, a), "second remove returns NULL");
    Check.equal(0x2008, Native.get(t, b), "the other object keeps its state");
    long before = Native.handedCount();
    Native.free(t);
    Check.equal(before + 1, Native.handedCount(), "free_state_table hands the remaining state to the callback");
  }

  static void argumentErrors() {
    long t = Native.init(Peer.class, 7);
    Peer a = new Peer();
    Check.equal(0, Native.set(t, a, 0), "set_state(NULL STATE) returns 0 (GNU Classpath's behaviour)");
    Check.throwsPending(NullPointerException.class, () -> Native.set(t, null, 8), "set_state(NULL OBJ)");
    Check.that(Native.lastResult() < 0, "set_state(NULL OBJ) returns a negative value");
    Check.throwsPending(NoSuchFieldError.class, () -> Native.set(t, new Object(), 8),
        "set_state(OBJ of a class without a native_state field)");
    Check.that(Native.lastResult() < 0, "set_state(OBJ without the field) returns a negative value");
    Check.throwsPending(NullPointerException.class, () -> Native.set(0, a, 8), "set_state(NULL TABLE)");
    Check.that(Native.lastResult() < 0, "set_state(NULL TABLE) returns a negative value");
    Check.throwsPending(NullPointerException.class, () -> Native.get(t, null), "get_state(NULL OBJ)");
    Check.equal(0, Native.lastResult(), "get_state(NULL OBJ) returns NULL");
    Check.throwsPending(NullPointerException.class, () -> Native.remove(t, null), "remove_state_slot(NULL)");
    Check.equal(0, Native.lastResult(), "remove_state_slot(NULL OBJ) returns NULL");
    Native.setOid(t, null, 3, 0);
    Check.equal(0, Native.getOid(t, null, 3), "set_state_oid(NULL STATE) stores nothing");
    Check.throwsPending(NullPointerException.class, () -> Native.getOid(0, null, 3), "get_state_oid(NULL TABLE)");
    Check.throwsPending(NullPointerException.class, () -> Native.sweepNullCallback(t),
        "sweep_state_table(NULL callback)");
    Check.equal(-1, Native.lastResult(), "sweep_state_table(NULL callback) returns -1");
    Check.equal(0, Native.size(t), "failed calls store nothing");
    Native.free(t);
  }

  static void pendingExceptionOnEntry() {
    long t = Native.init(Peer.class, 7);
    Peer a = new Peer();
    Check.equal(0, Native.set(t, a, a.state()), "set_state");
    Native.setOid(t, null, 5, 0x5008);
    RuntimeException mine = new RuntimeException("pending on entry");
    try {
      Native.callAllWithPending(t, Peer.class, a, mine);
      Check.fail("the pending exception was lost");
    } catch (RuntimeException e) {
      Check.that(e == mine, "the exception pending on entry is left as it was, got " + e);
    }
    Check.equal(0, Native.pendingFailures(), "calls with a pending exception fail and leave it pending");
    Check.equal(a.state(), Native.get(t, a), "calls with a pending exception change nothing (object)");
    Check.equal(0x5008, Native.getOid(t, null, 5), "calls with a pending exception change nothing (id)");
    Native.free(t);
  }

  static void objectIds() {
    long t = Native.init(Peer.class, 1);
    Object lock = new Object();
    int[] ids = {0, 1, -1, 97, -97, Integer.MIN_VALUE, Integer.MAX_VALUE, Integer.MIN_VALUE + 97};
    for (int i = 0; i < ids.length; i++) {
      Native.setOid(t, lock, ids[i], (i + 1) << 4);
    }
    for (int i = 0; i < ids.length; i++) {
      Check.equal((i + 1) << 4, Native.getOid(t, lock, ids[i]), "get_state_oid(" + ids[i] + ")");
    }
    Native.setOid(t, null, Integer.MIN_VALUE, 0x7008);
    Check.equal(0x7008, Native.getOid(t, lock, Integer.MIN_VALUE), "set_state_oid replaces");
    Check.equal(0x7008, Native.removeOid(t, lock, Integer.MIN_VALUE), "remove_state_oid returns the state");
    Check.equal(0, Native.getOid(t, lock, Integer.MIN_VALUE), "get_state_oid after remove_state_oid");
    Check.equal(0, Native.removeOid(t, lock, Integer.MIN_VALUE), "second remove_state_oid");
    Check.equal(2 << 4, Native.getOid(t, null, 1), "other ids keep their state");
    // An object whose identity hash equals an id does not see the id's state, and vice versa.
    Peer p = new Peer();
    Native.setOid(t, null, p.native_state, 0x9008);
    Check.equal(0, Native.get(t, p), "an object does not see the state of an equal object id");
    Native.set(t, p, p.state());
    Check.equal(0x9008, Native.getOid(t, null, p.native_state), "an object id does not see an object's state");
    Check.equal(ids.length - 1 + 2, Native.size(t), "entries");
    Native.free(t);
  }
}
