package jvmkit.test.context;

import org.jvmkit.JvmkitContext;

/**
 * Without the agent: JvmkitContext is inactive, and its scopes open, nest and close without
 * effect or error. Exits 1 on a failed check.
 */
public final class InactiveContext {
  private InactiveContext() {}

  public static void main(String[] args) {
    if (JvmkitContext.isActive()) {
      System.err.println("InactiveContext: active without the agent");
      System.exit(1);
    }
    long opened = 0;
    for (int i = 0; i < 1_000_000; i++) {
      try (JvmkitContext.Scope a = JvmkitContext.with("endpoint", "/a");
          JvmkitContext.Scope b = JvmkitContext.withSpan(1L, 2L, 3L)) {
        opened += a.hashCode() == b.hashCode() ? 1 : 0;
      }
    }
    if (opened != 1_000_000) {
      System.err.println("InactiveContext: inactive scopes are not the one shared scope");
      System.exit(1);
    }
    System.out.println("InactiveContext: ok");
  }
}
