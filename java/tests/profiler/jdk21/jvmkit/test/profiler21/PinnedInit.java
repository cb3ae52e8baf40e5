package jvmkit.test.profiler21;

/**
 * A class whose initializer waits for a lock (VirtualMix.waitPinned). VirtualMix defines it afresh
 * in a new class loader for each wait, so the initializer runs each time: a virtual thread running
 * it is pinned (the VM calls the initializer), and its park parks the carrier thread.
 */
public final class PinnedInit {
  static {
    VirtualMix.waitPinned();
  }

  private PinnedInit() {}
}
