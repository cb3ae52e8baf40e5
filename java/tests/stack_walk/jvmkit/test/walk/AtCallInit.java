package jvmkit.test.walk;

/**
 * Defined afresh by a class loader of its own in each round of AtCallMain's "init" thread: its
 * static initializer, which the VM runs through a call back into Java below the frames that asked
 * for the class, allocates through AtCallMain's compiled allocation methods.
 */
public final class AtCallInit {
  static {
    AtCallMain.initAllocations();
  }

  private AtCallInit() {}
}
