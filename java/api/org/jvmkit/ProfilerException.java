package org.jvmkit;

/**
 * A failure of the jvmkit profiler that is neither a bad option ({@link IllegalArgumentException})
 * nor a command that does not fit the profiler's state ({@link IllegalStateException}): the agent
 * library cannot be found or loaded, another version of it runs, a run cannot start, or a profile
 * could not be written where it was asked for. {@link #reason()} says which; the message says what
 * happened, in the agent's words where the agent answered.
 */
public final class ProfilerException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** What failed. */
  public enum Reason {
    /** The agent is not in this JVM, and no path to it was given. */
    NOT_LOADED,
    /** The library at the path given could not be loaded, or is not the jvmkit agent. */
    LOAD_FAILED,
    /** Another version of the agent runs in this JVM. */
    OTHER_VERSION,
    /** A run could not start (for example a hardware event on a machine without a PMU). */
    CANNOT_START,
    /**
     * An output file cannot be written: at start, nothing runs; at stop or dump, the profile went
     * to a fallback file, which the message names.
     */
    CANNOT_WRITE,
    /** Anything else the agent could not do (the message says what). */
    FAILED,
  }

  private final Reason reason;

  ProfilerException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  ProfilerException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  /** What failed. */
  public Reason reason() {
    return reason;
  }
}
