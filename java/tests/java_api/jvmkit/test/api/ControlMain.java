package jvmkit.test.api;

import java.nio.file.Files;
import java.nio.file.Path;
import org.jvmkit.Profiler;
import org.jvmkit.ProfilerException;

/**
 * The Java API's commands and errors, with the agent found by get() through the system property
 * jvmkit.agent.path or the environment variable JVMKIT_AGENT_PATH (the JVM has no agent at start):
 *   ControlMain OUT_DIR VERSION
 * start, a dump while it runs, status, stop writing a collapsed profile that names the hot method;
 * bad options (IllegalArgumentException naming the option), commands that do not fit the state
 * (IllegalStateException), an output that cannot be written (ProfilerException CANNOT_WRITE).
 */
public final class ControlMain {
  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    String version = args[1];
    Files.createDirectories(out);
    Path profile = out.resolve("control.collapsed");
    Path mid = out.resolve("mid.collapsed");
    Files.deleteIfExists(profile);
    Files.deleteIfExists(mid);

    Profiler profiler = Profiler.get();
    Check.that(Profiler.get() == profiler, "get() gives the same profiler again");
    Check.that(version.equals(profiler.version()), "version() is the build's, " + version + ": " + profiler.version());
    Check.contains(profiler.status(), "not running", "status before any run");
    Check.fails(IllegalStateException.class, profiler::stop, "stop with nothing running");
    Check.fails(IllegalStateException.class, () -> profiler.dump(mid.toString()), "dump with nothing running");

    IllegalArgumentException bad = Check.fails(
        IllegalArgumentException.class, () -> profiler.start("interval=10xs"), "a bad interval");
    Check.contains(bad.getMessage(), "interval=10xs", "the message names the option");
    bad = Check.fails(IllegalArgumentException.class, () -> profiler.execute("start,colour=red"), "an unknown option");
    Check.contains(bad.getMessage(), "colour=red", "the message names the unknown option");
    bad = Check.fails(
        IllegalArgumentException.class, () -> profiler.execute("status,reply=/tmp/x"), "reply= from Java");
    Check.contains(bad.getMessage(), "reply=", "the message names reply=");
    bad = Check.fails(IllegalArgumentException.class, () -> profiler.dump("a,b.collapsed"), "a file with a comma");
    Check.contains(bad.getMessage(), "a,b.collapsed", "the message names the file");
    ProfilerException unwritable = Check.fails(ProfilerException.class,
        () -> profiler.start("file=" + out.resolve("no/such/dir/p.collapsed")), "start to a missing folder");
    Check.that(unwritable.reason() == ProfilerException.Reason.CANNOT_WRITE, "reason CANNOT_WRITE");
    Check.contains(profiler.status(), "not running", "a refused start leaves nothing running");

    String started = profiler.start("event=cpu,interval=1ms,file=" + profile);
    Check.contains(started, "started", "start answers");
    Check.fails(IllegalStateException.class, () -> profiler.start("event=cpu"), "start while running");
    String status = profiler.status();
    Check.contains(status, "running: ", "status while running");
    Check.contains(status, profile.toString(), "status names the run's file");

    String dumped = Hot.workUntilDumped(profiler, mid);
    Check.contains(dumped, mid.toString(), "the dump's answer names its file");
    Check.that(!Files.exists(profile), "a dump to another file leaves the run's file alone");

    String report = profiler.stop();
    Check.contains(report, profile.toString(), "stop's report names the file");
    Check.contains(Check.read(profile), Hot.METHOD, "the stopped profile names the hot method");
    Check.contains(profiler.status(), "not running", "status after stop");
    Check.fails(IllegalStateException.class, profiler::stop, "stop again");

    // A second run in the same JVM: the API keeps working after a stop.
    Path second = out.resolve("second.collapsed");
    Files.deleteIfExists(second);
    profiler.start("file=" + second);
    Hot.workUntilDumped(profiler, out.resolve("mid2.collapsed"));
    profiler.stop();
    Check.contains(Check.read(second), Hot.METHOD, "a second run writes its profile");
    System.out.println("passed");
  }
}
