package jvmkit.test.profiler;

/**
 * Classes that are unloaded soon after they ran: each round defines {@link Unloadable} in a fresh
 * class loader, runs its spin method for ~50 ms, and drops the loader; a GC every few rounds
 * unloads them ({@link UnloadingRounds}). Their methods must appear under their real names: the
 * profiler resolves names while the stack-walk library keeps the class pinned, not when it writes
 * the output.
 * Usage: Unloading SECONDS TRUTH_FILE
 */
public final class Unloading {
  private Unloading() {}

  public static void main(String[] args) throws Exception {
    UnloadingRounds.run(Double.parseDouble(args[0]), "jvmkit.test.profiler.Unloadable", "spin", 50L);
    new Truth().within("jvmkit.test.profiler.UnloadingRounds.round").includeOther()
        .shares(new String[] {"jvmkit.test.profiler.Unloadable.spin"}, new long[] {1})
        .forbid("?.")
        .forbid(".?")
        .write(args[1]);
  }
}
