package jvmkit.test.profiler;

import java.nio.file.Files;
import java.nio.file.Paths;

/**
 * Checks the stacks of virtual threads in collapsed profiles (root first). A virtual thread runs
 * above jdk.internal.vm.Continuation.enterSpecial, where its continuation was entered on the
 * carrier's stack:
 *
 * <ul>
 *   <li>a stack with enterSpecial must have the virtual thread's own frames above it (towards the
 *       leaf), down from java.lang.VirtualThread.run: a stack ending at enterSpecial, or with only
 *       the continuation's entry frames above it, lost the thread's frames;
 *   <li>with {@code --no-carrier} (the stack-walk library's default: a mounted virtual thread's
 *       trace stops at enterSpecial, the carrier's frames only by opt-in), no stack has
 *       enterSpecial at all, and no virtual thread's stack has the carrier's frames
 *       (VirtualThread.runContinuation) below its own.
 * </ul>
 *
 * <p>Usage: CheckVirtualStacks [--no-carrier] COLLAPSED...
 */
public final class CheckVirtualStacks {
  static final String ENTER_SPECIAL = "jdk.internal.vm.Continuation.enterSpecial";
  static final String THREAD_RUN = "java.lang.VirtualThread.run";
  static final String CARRIER = "java.lang.VirtualThread.runContinuation";

  public static void main(String[] args) throws Exception {
    boolean noCarrier = false;
    int failures = 0;
    for (String arg : args) {
      if (arg.equals("--no-carrier")) {
        noCarrier = true;
        continue;
      }
      long total = 0, virtual = 0, withEntry = 0, lost = 0, carrier = 0;
      String lostExample = null;
      for (String line : Files.readAllLines(Paths.get(arg))) {
        int space = line.lastIndexOf(' ');
        if (space <= 0) continue;
        long count = Long.parseLong(line.substring(space + 1));
        String[] frames = line.substring(0, space).split(";");
        total += count;
        int entry = indexOf(frames, ENTER_SPECIAL, 0);
        int run = indexOf(frames, THREAD_RUN, entry < 0 ? 0 : entry);
        if (run >= 0) virtual += count;
        // The carrier's frames below a virtual thread's (a carrier's own stack, e.g. while it mounts
        // a thread, is not a virtual thread's).
        int below = indexOf(frames, CARRIER, 0);
        if (run >= 0 && below >= 0 && below < run) carrier += count;
        if (entry < 0) continue;
        withEntry += count;
        // The thread's own frames: VirtualThread.run and at least one frame above it.
        if (run < 0 || run + 1 >= frames.length) {
          lost += count;
          if (lostExample == null) lostExample = line;
        }
      }
      System.out.printf("%s: %d samples, %d of virtual threads, %d with enterSpecial (%d without the thread's"
          + " frames above it), %d with carrier frames below a virtual thread's%n", arg, total, virtual, withEntry, lost, carrier);
      if (virtual == 0) {
        System.out.println("FAIL: no sample of a virtual thread (" + THREAD_RUN + ")");
        failures++;
      }
      if (lost > 0) {
        System.out.println("FAIL: stacks end at enterSpecial without the virtual thread's frames, e.g. " + lostExample);
        failures++;
      }
      if (noCarrier && (withEntry > 0 || carrier > 0)) {
        System.out.println("FAIL: by default a virtual thread's stack stops at enterSpecial, exclusive; "
            + withEntry + " samples have enterSpecial, " + carrier + " the carrier's frames");
        failures++;
      }
    }
    if (failures > 0) System.exit(1);
    System.out.println("PASS");
  }

  /** The index of the first frame at or after FROM that contains NAME, or -1. */
  static int indexOf(String[] frames, String name, int from) {
    for (int i = Math.max(from, 0); i < frames.length; i++) {
      if (frames[i].contains(name)) return i;
    }
    return -1;
  }
}
