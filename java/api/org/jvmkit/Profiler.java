package org.jvmkit;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Control of the jvmkit profiler agent ({@code libjvmkit_prof.so}) from the program it profiles:
 * the commands the {@code jvmkit} tool sends to a running JVM (start, stop, dump, status), with the
 * agent's option syntax, and their answers as strings.
 *
 * <pre>{@code
 * Profiler profiler = Profiler.get();   // the agent in this JVM, or loaded from -Djvmkit.agent.path
 * profiler.start("event=cpu,interval=1ms,file=/tmp/app.html");
 * ...
 * String report = profiler.stop();      // writes /tmp/app.html; the report names the file
 * }</pre>
 *
 * <p>Errors, by the agent's answer code (never by its text): a bad option list throws {@link
 * IllegalArgumentException} with the agent's message, which names the option; a command that does
 * not fit the profiler's state (start while running, stop or dump while not) throws {@link
 * IllegalStateException}; anything else {@link ProfilerException}. The methods may be called from
 * any thread; the agent carries out one command at a time.
 */
public final class Profiler {
  /** The system property {@link #get()} loads the agent from when it is not in the JVM yet. */
  public static final String AGENT_PATH_PROPERTY = "jvmkit.agent.path";
  /** The environment variable {@link #get()} loads the agent from when the property is not set. */
  public static final String AGENT_PATH_ENV = "JVMKIT_AGENT_PATH";

  // The agent's answer codes (src/profiler/run/answer_code.hpp, the agent's contract with its tools).
  private static final int OK = 0;
  private static final int BAD_OPTION = 1;
  private static final int ALREADY_RUNNING = 2;
  private static final int NOT_RUNNING = 3;
  private static final int OTHER_VERSION = 4;
  private static final int CANNOT_START = 5;
  private static final int CANNOT_WRITE = 6;

  private static Profiler instance; // guarded by Profiler.class

  private final String version;

  private Profiler(String version) {
    this.version = version;
  }

  /**
   * The profiler of this JVM: the agent loaded at its start ({@code -agentpath}), by the {@code
   * jvmkit} tool, or earlier through this class. When it is not loaded, loads it from the path in
   * the system property {@value #AGENT_PATH_PROPERTY}, else from the environment variable {@value
   * #AGENT_PATH_ENV}.
   *
   * @throws ProfilerException (reason {@code NOT_LOADED}) when the agent is not loaded and neither
   *     names a path; as {@link #load(String)} when the path named cannot be loaded
   */
  public static synchronized Profiler get() {
    if (instance != null) return instance;
    String version = boundVersion();
    if (version != null) {
      instance = new Profiler(version);
      return instance;
    }
    String path = System.getProperty(AGENT_PATH_PROPERTY);
    if (path == null || path.isEmpty()) path = System.getenv(AGENT_PATH_ENV);
    if (path == null || path.isEmpty()) {
      throw new ProfilerException(
          ProfilerException.Reason.NOT_LOADED,
          "jvmkit agent not loaded: this JVM was not started with -agentpath:.../libjvmkit_prof.so"
              + " nor attached to by the jvmkit tool, and neither the system property "
              + AGENT_PATH_PROPERTY + " nor the environment variable " + AGENT_PATH_ENV
              + " names the library; set -D" + AGENT_PATH_PROPERTY
              + "=/path/to/libjvmkit_prof.so or use Profiler.load(path)");
    }
    return load(path);
  }

  /**
   * Loads the agent library from {@code libraryPath} ({@link System#load}; a relative path is
   * taken from the working directory) and returns the profiler. When the agent already runs in
   * this JVM (loaded from another path), the library is loaded all the same and passes every
   * command to the running one.
   *
   * @throws ProfilerException (reason {@code LOAD_FAILED}) naming the path, when there is no file
   *     there, it cannot be loaded, or it is not the jvmkit agent library
   */
  public static synchronized Profiler load(String libraryPath) {
    Objects.requireNonNull(libraryPath, "libraryPath");
    File file = new File(libraryPath).getAbsoluteFile();
    String cannot = "cannot load the jvmkit agent from " + libraryPath + ": ";
    if (!file.exists()) throw loadFailed(cannot + "no such file", null);
    if (!file.isFile()) throw loadFailed(cannot + "not a regular file", null);
    // Said here: HotSpot would warn about the stack guard of any file that is not ELF, then fail.
    if (!isElf(file)) throw loadFailed(cannot + "not a shared library (no ELF header)", null);
    try {
      System.load(file.getPath());
    } catch (UnsatisfiedLinkError e) {
      throw loadFailed(cannot + e.getMessage(), e);
    }
    // The natives bind to the first library that has them; this one must be a jvmkit agent.
    String version = boundVersion();
    String loaded = version == null ? null : agentVersionAt0(bytes(file.getPath()));
    if (loaded == null) {
      throw loadFailed(libraryPath + " is not the jvmkit agent library (libjvmkit_prof.so)", null);
    }
    if (instance == null) instance = new Profiler(version);
    return instance;
  }

  /**
   * Sends one command, as the agent's option list: an action ({@code start}, {@code stop}, {@code
   * dump}, {@code status}; {@code start} when there is none) and options, comma-separated: {@code
   * "start,event=cpu,interval=1ms,file=app.html"}, {@code "dump,file=now.collapsed"}, {@code
   * "stop"}. Files are written by the agent, in this JVM; a relative path is taken from its working
   * directory.
   *
   * @return the agent's answer: what it did, as the {@code jvmkit} tool prints it
   * @throws IllegalArgumentException a bad option list (the message names the option)
   * @throws IllegalStateException start while a run goes on; stop or dump while none does
   * @throws ProfilerException anything else the agent could not do
   */
  public String execute(String command) {
    Objects.requireNonNull(command, "command");
    if (command.indexOf('\0') >= 0) throw new IllegalArgumentException("command contains a NUL character");
    int[] code = new int[1];
    String text = new String(execute0(bytes(command), code), StandardCharsets.UTF_8);
    switch (code[0]) {
      case OK:
        return text;
      case BAD_OPTION:
        throw new IllegalArgumentException(text);
      case ALREADY_RUNNING:
      case NOT_RUNNING:
        throw new IllegalStateException(text);
      case OTHER_VERSION:
        throw new ProfilerException(ProfilerException.Reason.OTHER_VERSION, text);
      case CANNOT_START:
        throw new ProfilerException(ProfilerException.Reason.CANNOT_START, text);
      case CANNOT_WRITE:
        throw new ProfilerException(ProfilerException.Reason.CANNOT_WRITE, text);
      default:
        throw new ProfilerException(ProfilerException.Reason.FAILED, text);
    }
  }

  /**
   * Starts a run with the agent's options ({@code "event=cpu,interval=1ms,file=app.html"}; empty for
   * the defaults). Every output file is checked before anything runs.
   *
   * @return the agent's answer ({@code "started cpu: ..."})
   */
  public String start(String options) {
    return execute(withAction("start", options));
  }

  /**
   * Stops the run and writes its profile to the file given at start.
   *
   * @return the agent's report of the run, which names the file written
   */
  public String stop() {
    return execute("stop");
  }

  /** Stops the run and writes its profile as {@code options} say ({@code "file=x.collapsed"}). */
  public String stop(String options) {
    return execute(withAction("stop", options));
  }

  /**
   * Writes the profile so far to {@code file} (format from its extension) while the run goes on.
   *
   * @return the agent's answer, which names the file written
   */
  public String dump(String file) {
    return execute("dump,file=" + fileOption(file));
  }

  /** Writes the profile so far to the file given at start while the run goes on. */
  public String dump() {
    return execute("dump");
  }

  /** What the profiler does: {@code "not running"}, or the run's events, time and samples. */
  public String status() {
    return execute("status");
  }

  /** The version of the agent library this API's natives are bound to ({@code "0.1.0"}). */
  public String version() {
    return version;
  }

  private static String withAction(String action, String options) {
    Objects.requireNonNull(options, "options");
    return options.isEmpty() ? action : action + "," + options;
  }

  // An option list cannot carry a comma in a value: refused here, where it can be said why.
  private static String fileOption(String file) {
    Objects.requireNonNull(file, "file");
    if (file.indexOf(',') >= 0) {
      throw new IllegalArgumentException(
          "file=" + file + ": a file name with a comma cannot be passed in the agent's option list");
    }
    return file;
  }

  // The agent's version through its natives, or null when no loaded library has them.
  private static String boundVersion() {
    try {
      return version0();
    } catch (UnsatisfiedLinkError e) {
      return null;
    }
  }

  private static boolean isElf(File file) {
    byte[] magic = new byte[4];
    try (InputStream in = new FileInputStream(file)) {
      return in.readNBytes(magic, 0, 4) == 4
          && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
    } catch (IOException e) {
      return true; // unreadable here: System.load says why
    }
  }

  private static ProfilerException loadFailed(String message, Throwable cause) {
    return new ProfilerException(ProfilerException.Reason.LOAD_FAILED, message, cause);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  // In libjvmkit_prof.so (src/profiler/run/java_api.cpp); strings cross as UTF-8 bytes.
  private static native String version0();

  private static native byte[] execute0(byte[] command, int[] code);

  private static native String agentVersionAt0(byte[] path);
}
