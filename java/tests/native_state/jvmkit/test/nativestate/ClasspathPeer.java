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
    Check.pass("ClasspathPeer");
  }
}
