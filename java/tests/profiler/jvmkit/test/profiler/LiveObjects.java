package jvmkit.test.profiler;

import java.util.ArrayList;
import java.util.List;

/**
 * Allocations that stay and allocations that go: retain keeps every 1 KB array it allocates (64 MB
 * in all), garbage allocates four times as many bytes in arrays it drops at once. With alloc's
 * live option, the profile written at the end (after a GC) holds retain's allocations only;
 * without it, garbage would have 80% of the bytes.
 * Usage: LiveObjects TRUTH_FILE
 */
public final class LiveObjects {
  static final List<byte[]> KEPT = new ArrayList<>();
  static byte[] last;

  public static void main(String[] args) throws Exception {
    for (int round = 0; round < 64; round++) run();
    // The garbage is collected, and the JVM reports the freed objects (its service thread).
    System.gc();
    System.gc();
    Thread.sleep(300);
    new Truth().within("jvmkit.test.profiler.LiveObjects.run")
        .shares(new String[] {"LiveObjects.retain", "LiveObjects.garbage"}, new long[] {1, 0})
        .write(args[0]);
    System.out.println("kept " + KEPT.size() + " arrays");
  }

  static void run() {
    retain();
    garbage();
  }

  /** 1 MB in 1 KB arrays, kept. */
  static void retain() {
    for (int i = 0; i < 1024; i++) KEPT.add(new byte[1024]);
  }

  /** 4 MB in 1 KB arrays, dropped. */
  static void garbage() {
    for (int i = 0; i < 4096; i++) last = new byte[1024];
  }
}
