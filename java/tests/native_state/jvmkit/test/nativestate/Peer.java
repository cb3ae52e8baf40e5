package jvmkit.test.nativestate;

import java.util.concurrent.atomic.AtomicInteger;

/** A class of the high-level API: native_state holds the identity hash, id names the object. */
class Peer {
  private static final AtomicInteger NEXT_ID = new AtomicInteger(1);

  final int native_state = System.identityHashCode(this);
  final int id = NEXT_ID.getAndIncrement();

  /** The state the tests bind to this object: its id, shifted so that it is never 0. */
  long state() {
    return ((long) id << 4) | 8;
  }
}
