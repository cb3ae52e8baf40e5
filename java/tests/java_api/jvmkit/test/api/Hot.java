package jvmkit.test.api;

import java.nio.file.Path;
import org.jvmkit.Profiler;

/** The tests' workload: CPU time in one method the profiles must name. */
final class Hot {
  static final String METHOD = "jvmkit.test.api.Hot.countPrimes";
  static volatile long sink;

  private Hot() {}

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

  /**
   * Works until a dump of the running profile to FILE names the hot method: the profile has
   * samples of it, however long a busy machine takes to give them (at most 120 s).
   */
  static String workUntilDumped(Profiler profiler, Path file) throws Exception {
    long deadline = System.nanoTime() + 120_000_000_000L;
    String answer = "";
    while (System.nanoTime() < deadline) {
      for (int i = 0; i < 20; i++) sink += countPrimes(20_000);
      answer = profiler.dump(file.toString());
      if (Check.read(file).contains(METHOD)) return answer;
    }
    throw new AssertionError("no sample of " + METHOD + " in " + file + " after 120 s; last dump: " + answer);
  }
}
