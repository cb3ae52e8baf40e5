package jvmkit.test.nativestate;

import java.util.ArrayList;
import java.util.List;

/**
 * The two behaviours GNU Classpath's own C code relies on beyond the spec's text: set_state with a
 * NULL state (the object is left without one, the table does not grow), and objects of classes
 * other than the table's, each with its own native_state field, in one table (Classpath keeps
 * GdkGraphics objects in the table made for GtkGenericPeer). Run with -Xcheck:jni, and with every
 * identity hash equal (-XX:hashCode=2) so that objects of different classes collide.
 */
public final class ClasspathCompatTest {
  /** Unrelated to Peer; its native_state lies at another offset than Peer's. */
  static final class Graphics {
    final long before = 42;
    final Object alsoBefore = "x";
    final int native_state = System.identityHashCode(this);
  }

  /** Unrelated too, with the field first. */
  static final class Font {
    final int native_state = System.identityHashCode(this);
    final double after = 1.5;
  }

  /** No native_state field at all. */
  static final class Plain {}

  /** Frees its state from finalize(), as Classpath's peers did. */
  static final class Finalized {
    static volatile long table;
    // Counted by the Finalizer thread and by the secondary one System.runFinalization() starts,
    // possibly at the same time: an atomic count (a volatile int++ lost an update).
    static final java.util.concurrent.atomic.AtomicInteger removed = new java.util.concurrent.atomic.AtomicInteger();
    final int native_state = System.identityHashCode(this);

    @SuppressWarnings({"deprecation", "removal"})
    @Override
    protected void finalize() {
      if (Native.remove(table, this) != 0) removed.incrementAndGet();
    }
  }

  public static void main(String[] args) throws Exception {
    System.loadLibrary("native_state_test_jni");
    nullState();
    nullStateOid();
    foreignClasses();
    foreignClassesAtScale(args.length > 0 ? Integer.parseInt(args[0]) : 3000);
    noField();
    finalizeForeign();
    Check.pass("ClasspathCompatTest");
  }

  static void nullState() {
    long t = Native.init(Peer.class, 7);
    Peer a = new Peer();
    Peer b = new Peer();
    Check.equal(0, Native.set(t, b, b.state()), "set_state");
    Check.equal(0, Native.set(t, a, a.state()), "set_state");
    // An exception pending on return would be thrown here, and fail the test.
    Check.equal(0, Native.set(t, a, 0), "set_state(NULL) returns 0 and raises nothing");
    Check.equal(0, Native.get(t, a), "get_state after set_state(NULL) returns NULL");
    Check.equal(1, Native.size(t), "set_state(NULL) leaves no entry");
    for (int i = 0; i < 1000; i++) Check.equal(0, Native.set(t, a, 0), "set_state(NULL) again");
    Check.equal(1, Native.size(t), "repeated set_state(NULL) does not grow the table");
    Check.equal(0, Native.set(t, new Peer(), 0), "set_state(NULL) of an object that never had a state");
    Check.equal(1, Native.size(t), "... stores nothing");
    Check.equal(0, Native.remove(t, a), "remove_state_slot after set_state(NULL) returns NULL");
    Check.equal(0, Native.set(t, a, a.state()), "set_state after set_state(NULL)");
    Check.equal(a.state(), Native.get(t, a), "get_state after setting a state again");
    Check.equal(b.state(), Native.get(t, b), "the other object keeps its state");
    Native.free(t);
  }

  static void nullStateOid() {
    long t = Native.init(Peer.class, 7);
    Native.setOid(t, null, 11, 0x1108);
    Native.setOid(t, Peer.class, 11, 0);  // raises nothing
    Check.equal(0, Native.getOid(t, null, 11), "get_state_oid after set_state_oid(NULL) returns NULL");
    Check.equal(0, Native.size(t), "set_state_oid(NULL) leaves no entry");
    Native.free(t);
  }

  static void foreignClasses() {
    long t = Native.init(Peer.class, 7);
    Peer p = new Peer();
    SubPeer s = new SubPeer();
    Graphics g = new Graphics();
    Font f = new Font();
    Check.equal(0, Native.get(t, p), "no state before set_state");
    Check.equal(0, Native.set(t, p, 0x108), "set_state, the table's class");
    Check.equal(0, Native.set(t, g, 0x208), "set_state, an unrelated class with its own field");
    Check.equal(0, Native.set(t, f, 0x308), "set_state, a second unrelated class");
    Check.equal(0, Native.set(t, s, 0x408), "set_state, a subclass");
    Check.equal(0x108, Native.get(t, p), "get_state, the table's class");
    Check.equal(0x208, Native.get(t, g), "get_state, an unrelated class");
    Check.equal(0x308, Native.get(t, f), "get_state, a second unrelated class");
    Check.equal(0x408, Native.get(t, s), "get_state, a subclass");
    Check.equal(0, Native.get(t, new Graphics()), "get_state of another object of that class");
    Check.equal(0, Native.set(t, g, 0), "set_state(NULL), an unrelated class");
    Check.equal(0, Native.get(t, g), "get_state after set_state(NULL), an unrelated class");
    Check.equal(0x308, Native.remove(t, f), "remove_state_slot, an unrelated class");
    Check.equal(0, Native.get(t, f), "get_state after remove_state_slot, an unrelated class");
    Check.equal(2, Native.size(t), "entries left");
    Native.free(t);
  }

  /** Many objects of three unrelated classes: with -XX:hashCode=2 every key collides. */
  static void foreignClassesAtScale(int n) {
    long t = Native.init(Peer.class, 97);
    List<Object> objects = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Object o = i % 3 == 0 ? new Peer() : i % 3 == 1 ? new Graphics() : new Font();
      objects.add(o);
      Check.equal(0, Native.set(t, o, ((long) i << 4) | 8), "set_state #" + i);
    }
    for (int i = 0; i < n; i += 2) Check.equal(0, Native.set(t, objects.get(i), 0), "set_state(NULL) #" + i);
    for (int i = 0; i < n; i++) {
      long want = i % 2 == 0 ? 0 : ((long) i << 4) | 8;
      Check.equal(want, Native.get(t, objects.get(i)), "get_state #" + i);
    }
    Check.equal(n / 2, Native.size(t), "entries after set_state(NULL) of half the objects");
    Native.free(t);
  }

  static void noField() {
    long t = Native.init(Peer.class, 7);
    Check.throwsPending(NoSuchFieldError.class, () -> Native.set(t, new Plain(), 8),
        "set_state, an object without a native_state field");
    Check.that(Native.lastResult() < 0, "... returns a negative value");
    Check.equal(0, Native.set(t, new Graphics(), 8), "set_state, an unrelated class (the table is mixed now)");
    Check.throwsPending(NoSuchFieldError.class, () -> Native.get(t, new Plain()),
        "get_state, an object without a native_state field");
    Check.equal(0, Native.lastResult(), "... returns NULL");
    Native.free(t);
  }

  static void finalizeForeign() throws InterruptedException {
    long t = Native.init(Peer.class, 7);
    Finalized.table = t;
    for (int i = 0; i < 200; i++) Check.equal(0, Native.set(t, new Finalized(), 0x808), "set_state #" + i);
    Check.equal(200, Native.size(t), "entries before the objects die");
    for (int round = 0; round < 50 && Finalized.removed.get() < 200; round++) {
      System.gc();
      System.runFinalization();
      Thread.sleep(20);
    }
    Check.equal(200, Finalized.removed.get(), "remove_state_slot from finalize() found every state");
    Check.equal(0, Native.size(t), "no entry left");
    Native.free(t);
  }
}
