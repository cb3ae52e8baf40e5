package jvmkit.test.api;

import java.nio.file.Files;
import java.nio.file.Path;
import org.jvmkit.Profiler;

/**
 * The Java API on an agent that already runs a profile, started with the JVM (-agentpath) or by
 * the jvmkit tool (attach):
 *   RunningAgentMain PROFILE [--await FILE] [--load LIBRARY]
 * --await: prints "ready" and waits for FILE (the tool's start is done) before using the API.
 * --load: calls Profiler.load(a copy of LIBRARY at another path) before anything else, so that the
 * API's natives bind to the copy, which must pass every command to the running agent.
 * Then: the run is the agent's (status names PROFILE), a dump while it runs, and stop writes
 * PROFILE with the hot method.
 */
public final class RunningAgentMain {
  public static void main(String[] args) throws Exception {
    Path profile = Path.of(args[0]);
    Path await = null;
    String library = null;
    for (int i = 1; i < args.length; i += 2) {
      if (args[i].equals("--await")) await = Path.of(args[i + 1]);
      if (args[i].equals("--load")) library = args[i + 1];
    }
    if (await != null) {
      System.out.println("ready");
      System.out.flush();
      long deadline = System.nanoTime() + 120_000_000_000L;
      while (!Files.exists(await)) {
        if (System.nanoTime() > deadline) throw new AssertionError("no " + await + " after 120 s");
        Thread.sleep(20);
      }
    }
    Profiler profiler;
    if (library != null) {
      Path dir = Files.createTempDirectory("jvmkit-api-copy");
      Path copy = dir.resolve("libjvmkit_prof.so");
      Files.copy(Path.of(library), copy);
      dir.toFile().deleteOnExit(); // removed after the copy (the reverse order of registration)
      copy.toFile().deleteOnExit();
      profiler = Profiler.load(copy.toString());
      Check.that(Profiler.get() == profiler, "get() after load() of a copy");
    } else {
      profiler = Profiler.get();
    }
    String status = profiler.status();
    Check.contains(status, "running: ", "the agent's run is seen through the API");
    Check.contains(status, profile.toString(), "status names the agent's file");
    Hot.workUntilDumped(profiler, profile.resolveSibling(profile.getFileName() + ".mid.collapsed"));
    String report = profiler.stop();
    Check.contains(report, profile.toString(), "stop's report names the agent's file");
    Check.contains(Check.read(profile), Hot.METHOD, "the agent's profile names the hot method");
    Check.contains(profiler.status(), "not running", "status after stop");
    System.out.println("passed");
  }
}
