import org.jvmkit.Profiler;

/**
 * Profiles a part of itself with the jvmkit profiler, controlled from Java (org.jvmkit.Profiler in
 * jvmkit.jar): start, a status, stop, which writes the profile.
 *
 * <pre>
 * java -Djvmkit.agent.path=/opt/jvmkit/lib/libjvmkit_prof.so -cp /opt/jvmkit/share/java/jvmkit.jar:. \
 *     ControlExample [profile.html]
 * </pre>
 */
public final class ControlExample {
  static volatile long sink;

  public static void main(String[] args) {
    String file = args.length > 0 ? args[0] : "control-example.html";
    // The agent in this JVM (-agentpath, or the jvmkit tool), else the one -Djvmkit.agent.path names.
    Profiler profiler = Profiler.get();
    System.out.println("jvmkit agent " + profiler.version());

    System.out.println(profiler.start("event=cpu,interval=1ms,file=" + file));
    for (int round = 0; round < 40; round++) sink += countPrimes(100_000);
    System.out.println(profiler.status());
    // stop() writes the file given to start and answers with the run's report.
    System.out.println(profiler.stop());
  }

  // The work to profile: a fixed amount of CPU time (tenths of a second), however busy the machine.
  static long countPrimes(int limit) {
    long count = 0;
    for (int n = 2; n < limit; n++) {
      boolean prime = true;
      for (int d = 2; (long) d * d <= n; d++) {
        if (n % d == 0) {
          prime = false;
          break;
        }
      }
      if (prime) count++;
    }
    return count;
  }
}
