package jvmkit.test.nativestate;

import java.lang.ref.WeakReference;

/** The typed C++ API (jvmkit::StateTable<T>, RAII) owns its states. */
public final class CppApiTest {
  static {
    System.loadLibrary("native_state_cpp_api_jni");
  }

  static native long create(Class<?> clazz);

  static native boolean exercise(long table, Object[] objs);

  static native int sweep(long table);

  static native void destroy(long table);

  static native void destroyOnNativeThread(long table);

  static native long deleted();

  public static void main(String[] args) {
    long t = create(Peer.class);
    Check.that(t != 0, "StateTable::create");
    Peer[] peers = new Peer[100];
    for (int i = 0; i < peers.length; i++) {
      peers[i] = new Peer();
    }
    long d0 = deleted();
    Check.that(exercise(t, peers), "StateTable get/set/remove");
    // exercise() deleted: the replaced state, the removed one, the one set(nullptr) dropped, and
    // the object-id state.
    Check.equal(d0 + 4, deleted(), "states deleted by replace/remove/set(nullptr)");
    WeakReference<Peer> probe = new WeakReference<>(peers[50]);
    for (int i = 50; i < 100; i++) {
      peers[i] = null;
    }
    Check.gcUntilCleared(probe, "dead peers");
    Check.equal(50, sweep(t), "sweep deletes the states of the 50 dead objects");
    Check.equal(d0 + 54, deleted(), "sweep deleted them");
    destroy(t);
    Check.equal(d0 + 54 + 49, deleted(), "the destructor deletes the 49 remaining states");

    long t2 = create(Peer.class);
    Peer[] live = java.util.Arrays.copyOf(peers, 50);
    Check.that(exercise(t2, live), "second table");
    long d1 = deleted();
    destroyOnNativeThread(t2);
    Check.equal(d1 + live.length - 1, deleted(), "destructor on an unattached native thread");
    Check.pass("CppApiTest");
  }
}
