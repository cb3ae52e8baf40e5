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
}
