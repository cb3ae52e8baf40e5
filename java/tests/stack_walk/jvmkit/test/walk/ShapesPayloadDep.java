package jvmkit.test.walk;

/**
 * Loaded by ShapesPayload's own loader when ShapesPayload's compiled code first allocates one; its
 * static initializer, run by the VM below that allocation, clones large arrays.
 */
public final class ShapesPayloadDep {
  static final int BASE;

  static {
    int base = 0;
    for (int i = 0; i < 4; i++) base += ShapesMain.cloneBig(i);
    BASE = base;
  }

  final int value;

  ShapesPayloadDep(int value) {
    this.value = value + BASE;
  }
}
