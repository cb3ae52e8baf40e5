package jvmkit.test.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A JVM for the jvmkit tool to attach to: prints "ready" once it runs, then spends nearly all of
 * its CPU time in {@link #spin} until the given seconds have passed, so that any profile of it,
 * however short, names that method. Given a folder, it removes it (with what it holds) before it
 * exits: a profile to be written there at the JVM's exit cannot be.
 *
 * <p>Usage: ProfileTarget seconds [folder to remove at the end]
 */
public final class ProfileTarget {
  static volatile long sink = 1;

  public static void main(String[] args) throws IOException {
    long seconds = args.length > 0 ? Long.parseLong(args[0]) : 60;
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    System.out.println("ready");
    System.out.flush();
    while (System.nanoTime() < deadline) {
      sink = spin(sink);
    }
    if (args.length > 1) removeFolder(Paths.get(args[1]));
  }

  static void removeFolder(Path folder) throws IOException {
    try (Stream<Path> paths = Files.walk(folder)) {
      for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) Files.delete(p);
    }
    System.out.println("removed " + folder);
  }

  /** A few milliseconds of xorshift steps, each depending on the last (nothing to optimize away). */
  static long spin(long seed) {
    long x = seed | 1;
    for (int i = 0; i < 2_000_000; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
    }
    return x;
  }
}
