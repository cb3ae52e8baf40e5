package jvmkit.test.walk;

import java.util.function.IntUnaryOperator;

/**
 * Defined afresh by a class loader of its own in each round of ShapesMain. Its step method is
 * called until it is compiled (the test runs C1 alone, synchronously, with low thresholds) and only
 * its last call takes the branch that uses what is not resolved yet, so that compiled code meets it:
 * C1's patching and allocation stubs call the VM, which calls Java back to load ShapesPayloadDep
 * (the loader's loadClass), to run its static initializer, and to link a lambda
 * (LambdaMetafactory), each below a runtime stub's frame.
 */
public final class ShapesPayload {
  static final int SEED = ShapesMain.allocate(7).length;

  private ShapesPayload() {}

  /** Calls step CALLS times; the last call goes down the unresolved branch. */
  public static int run(int calls) {
    int sum = 0;
    for (int i = 0; i < calls; i++) sum += step(i, calls);
    return sum;
  }

  static int step(int i, int calls) {
    if (i < calls - 1) return i & 7;
    ShapesPayloadDep dep = new ShapesPayloadDep(i);
    IntUnaryOperator op = v -> v + SEED + ShapesMain.cloneBig(v);
    return op.applyAsInt(dep.value);
  }
}
