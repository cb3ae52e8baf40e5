package jvmkit.test.api;

import java.nio.file.Files;
import java.nio.file.Path;

/** Assertions of the Java API tests: a failed one throws, and java exits non-zero with its message. */
final class Check {
  private Check() {}

  interface Action {
    void run() throws Exception;
  }

  static void that(boolean condition, String what) {
    if (!condition) throw new AssertionError(what);
    System.out.println("ok: " + what);
  }

  static void contains(String text, String part, String what) {
    if (text == null || !text.contains(part)) {
      throw new AssertionError(what + ": expected '" + part + "' in:\n" + text);
    }
    System.out.println("ok: " + what);
  }

  /** Runs ACTION, which must throw TYPE (exactly that class); returns what it threw. */
  static <T extends Throwable> T fails(Class<T> type, Action action, String what) {
    try {
      action.run();
    } catch (Throwable t) {
      if (t.getClass() != type) throw new AssertionError(what + ": threw " + t + ", not " + type.getName(), t);
      System.out.println("ok: " + what + " (" + type.getSimpleName() + ": " + t.getMessage() + ")");
      return type.cast(t);
    }
    throw new AssertionError(what + ": no " + type.getName() + " thrown");
  }

  /** The text of FILE, "" when there is none. */
  static String read(Path file) throws Exception {
    return Files.isRegularFile(file) ? Files.readString(file) : "";
  }
}
