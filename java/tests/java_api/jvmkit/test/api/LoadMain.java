package jvmkit.test.api;

import java.nio.file.Files;
import java.nio.file.Path;
import org.jvmkit.Profiler;
import org.jvmkit.ProfilerException;

/**
 * Finding and loading the agent, in a JVM without it, the system property or the variable:
 *   LoadMain OUT_DIR AGENT_PATH OTHER_LIBRARY
 * get() says how to give the path; load() of a missing file, of a file that is no library, and of
 * OTHER_LIBRARY (a library that is not the agent) each name the path; get() still finds nothing
 * after them; then load(AGENT_PATH) loads it, and get() gives the same profiler.
 */
public final class LoadMain {
  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    String agent = args[1];
    String other = args[2];
    Files.createDirectories(out);

    ProfilerException e = Check.fails(ProfilerException.class, Profiler::get, "get() without the agent");
    Check.that(e.reason() == ProfilerException.Reason.NOT_LOADED, "reason NOT_LOADED");
    Check.contains(e.getMessage(), "jvmkit agent not loaded", "the message says the agent is not loaded");
    Check.contains(e.getMessage(), "-Djvmkit.agent.path=", "the message names the property to set");
    Check.contains(e.getMessage(), "Profiler.load(path)", "the message names Profiler.load");

    String missing = out.resolve("no-such-dir/libjvmkit_prof.so").toString();
    e = Check.fails(ProfilerException.class, () -> Profiler.load(missing), "load() of a missing file");
    Check.that(e.reason() == ProfilerException.Reason.LOAD_FAILED, "reason LOAD_FAILED");
    Check.contains(e.getMessage(), missing, "the message names the missing path");

    Path text = out.resolve("not-a-library.so");
    Files.writeString(text, "not an ELF file\n");
    e = Check.fails(ProfilerException.class, () -> Profiler.load(text.toString()), "load() of a text file");
    Check.contains(e.getMessage(), text.toString(), "the message names the text file");
    Check.contains(e.getMessage(), "not a shared library", "the message says it is no library");

    e = Check.fails(ProfilerException.class, () -> Profiler.load(other), "load() of another library");
    Check.contains(e.getMessage(), other, "the message names the other library");
    Check.contains(e.getMessage(), "is not the jvmkit agent", "the message says it is not the agent");

    e = Check.fails(ProfilerException.class, Profiler::get, "get() still finds no agent");
    Check.that(e.reason() == ProfilerException.Reason.NOT_LOADED, "still NOT_LOADED");

    Profiler profiler = Profiler.load(agent);
    Check.that(Profiler.get() == profiler, "get() gives the loaded profiler");
    Check.contains(profiler.status(), "not running", "status of the loaded agent");
    e = Check.fails(ProfilerException.class, () -> Profiler.load(other), "load() of another library once loaded");
    Check.contains(e.getMessage(), other, "the message names the other library");
    Check.that(Profiler.load(agent) == profiler, "load() of the same library again");
    System.out.println("passed");
  }
}
