package jvmkit.test.nativestate;

/**
 * A peer class written the GNU Classpath way (final int native_state, natives
 * in old-style C that include "native_state.h"; tests/native_state/classpath_consumer.c). The
 * library to load is the first argument (the build tree's or an installed tree's consumer).
 */
public final class ClasspathPeer {
  private final int native_state = System.identityHashCode(this);

  static native boolean initIDs();

  native boolean create(int value);

  native int value();

  native boolean dispose();

  static native int oid(int id, int value);

  /** Not a ClasspathPeer: its own native_state field, its state in ClasspathPeer's table. */
  static final class Graphics {
    final String name = "graphics";
    private final int native_state = System.identityHashCode(this);

    native boolean create(int value);

    native int value();

    native boolean clear();

    native boolean dispose();
  }

  public static void main(String[] args) {
    if (args.length > 0 && args[0].startsWith("/")) {
      System.load(args[0]);
    } else {
      System.loadLibrary(args.length > 0 ? args[0] : "native_state_classpath_c");
    }
    Check.that(initIDs(), "init_state_table from C");
    ClasspathPeer[] peers = new ClasspathPeer[100];
    for (int i = 0; i < peers.length; i++) {
      peers[i] = new ClasspathPeer();
      Check.that(peers[i].create(i * 3), "set_state from C");
    }
    for (int i = 0; i < peers.length; i++) {
      Check.equal(i * 3, peers[i].value(), "get_state from C");
    }
    Check.that(peers[7].dispose(), "remove_state_slot from C");
    Check.equal(-1, peers[7].value(), "get_state after remove_state_slot from C");
    Check.that(!peers[7].dispose(), "second remove_state_slot from C");
    Check.equal(1234, oid(Integer.MIN_VALUE, 1234), "the *_oid calls from C, LOCK = the class");
    Graphics[] graphics = new Graphics[50];
    for (int i = 0; i < graphics.length; i++) {
      graphics[i] = new Graphics();
      Check.that(graphics[i].create(1000 + i), "set_state from C, an object of another class");
    }
    for (int i = 0; i < graphics.length; i++) {
      Check.equal(1000 + i, graphics[i].value(), "get_state from C, an object of another class");
    }
    Check.equal(24, peers[8].value(), "get_state from C of a peer, the table mixed");
    Check.equal(30, peers[10].value(), "get_state from C of a peer, the table mixed");
    Check.that(graphics[3].clear(), "set_state(NULL) from C");
    Check.equal(-1, graphics[3].value(), "get_state after set_state(NULL) from C");
    Check.that(graphics[3].create(77), "set_state from C after set_state(NULL)");
    Check.equal(77, graphics[3].value(), "get_state after setting again");
    Check.that(graphics[4].dispose(), "remove_state_slot from C, an object of another class");
    Check.equal(-1, graphics[4].value(), "get_state after remove_state_slot, an object of another class");
    Check.pass("ClasspathPeer");
  }
}
