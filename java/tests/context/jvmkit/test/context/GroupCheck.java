package jvmkit.test.context;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Checks VirtualLabels' collapsed profile (with the labels option): of the samples in a burnN
 * method under a [group=gM] root, those with M != N are labels that did not follow their virtual
 * thread. Passes when at least MIN_MATCHED samples match and at most MAX_WRONG (a fraction) of
 * the labelled burn samples do not.
 *
 * <p>Usage: GroupCheck FILE MIN_MATCHED MAX_WRONG. Exits 1 on a failed check.
 */
public final class GroupCheck {
  private GroupCheck() {}

  public static void main(String[] args) throws IOException {
    long minMatched = Long.parseLong(args[1]);
    double maxWrong = Double.parseDouble(args[2]);
    long matched = 0;
    long wrong = 0;
    long unlabelled = 0;
    for (String line : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
      int burn = line.lastIndexOf("VirtualLabels.burn");
      if (line.isEmpty() || line.startsWith("#") || burn < 0) {
        continue;
      }
      char method = line.charAt(burn + "VirtualLabels.burn".length());
      if (!Character.isDigit(method)) {
        continue;  // in the dispatching method burn itself
      }
      long count = Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
      if (!line.startsWith("[group=g")) {
        unlabelled += count;
      } else if (line.charAt("[group=g".length()) == method) {
        matched += count;
      } else {
        wrong += count;
      }
    }
    double wrongShare = matched + wrong == 0 ? 1 : wrong / (double) (matched + wrong);
    System.out.printf("burn samples: %d under their own group's label, %d under another's (%.4f), %d unlabelled%n",
        matched, wrong, wrongShare, unlabelled);
    boolean ok = matched >= minMatched && wrongShare <= maxWrong;
    System.out.println(ok ? "ok" : "FAIL");
    System.exit(ok ? 0 : 1);
  }
}
