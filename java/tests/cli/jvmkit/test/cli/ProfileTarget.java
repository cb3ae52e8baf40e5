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
 * <p>Usage: ProfileTarget seconds [stop=FILE] [remove=FOLDER]: with stop=FILE it also ends once
 * that file exists (a test that wants the JVM to exit while profiled says when); with
 * remove=FOLDER it removes that folder before it exits.
 */
public final class ProfileTarget {
  static volatile long sink = 1;

  public static void main(String[] args) throws IOException {
    long seconds = args.length > 0 ? Long.parseLong(args[0]) : 60;
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    java.io.File stopFile = null;
    Path remove = null;
    for (int i = 1; i < args.length; i++) {
      if (args[i].startsWith("stop=")) stopFile = new java.io.File(args[i].substring(5));
      if (args[i].startsWith("remove=")) remove = Paths.get(args[i].substring(7));
    }
    System.out.println("ready");
    System.out.flush();
    while (System.nanoTime() < deadline && (stopFile == null || !stopFile.exists())) {
      sink = spin(sink);
    }
    if (remove != null) removeFolder(remove);
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
