package jvmkit.test.walk;

/** JNI entry points of the stack-walk test agent (tests/stack_walk/agent/natives.cpp). */
public final class Agent {
  private Agent() {}

  static {
    System.loadLibrary("stack_walk_test_agent");
  }

  public static native int enable();

  public static native int disable();

  public static native long agentThreadStarts();

  public static native int violations();

  public static native boolean checkThreads(String prefix, int min);

  public static native boolean cycles(int cycles, int windowMillis);

  /** mode=probe: compares the unbiased trace of this moment with GetStackTrace's (probe.cpp). */
  public static native void probe();

  /** Calls r.run() from native code (JNI). */
  public static native void callBack(Runnable r);

  /** Runs r.run() on a new native thread attached through JNI as NAME; returns once it detached. */
  public static native void runAttached(String name, Runnable r);

  /** Unbiased traces checked for their bottom frame on the threads named PREFIX... (require_bottom). */
  public static native long bottomChecked(String prefix);
}
