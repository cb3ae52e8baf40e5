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

  /**
   * mode=depth: traces delivered so far of a stack of FRAMES frames (complete ones of exactly that
   * many frames; beyond the depth limit, those truncated at the limit), unbiased or biased.
   */
  public static native long depthTraces(int frames, boolean biased);

  /**
   * The least number of moments sampled over the agent's checked threads (check_prefix, default
   * worker-): their samples, but those that repeated the thread's previous moment (several signals
   * handled back to back while the thread waited for a CPU).
   */
  public static native long fewestMoments();

  /**
   * mode=unload: samples of code in classes that unload, so far: delivered as Payload frames or
   * failed as class_unloaded.
   */
  public static native long unloadingSamples();

  /** An option of the agent as a number, FALLBACK when it was not given. */
  public static native long optionLong(String key, long fallback);

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
