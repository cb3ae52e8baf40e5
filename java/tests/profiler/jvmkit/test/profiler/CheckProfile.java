package jvmkit.test.profiler;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Compares a collapsed-stack profile with a workload's truth file (see {@link Truth}) and exits
 * non-zero, saying why, when they disagree.
 *
 * <p>Each stack (restricted to those containing the "within" frame, when given) is put in the
 * category of its leaf-most frame whose name contains a category name; stacks matching none are
 * "other", counted only when the truth says "other" (its true share is then 0). The measured
 * shares are compared with the true ones by total-variation distance: half the sum of absolute
 * differences, which must not exceed MAX_TVD.
 *
 * <p>Usage: CheckProfile COLLAPSED TRUTH MAX_TVD
 */
public final class CheckProfile {
  public static void main(String[] args) throws Exception {
    List<String> stacks = new ArrayList<>();
    List<Long> counts = new ArrayList<>();
    for (String line : Files.readAllLines(Paths.get(args[0]))) {
      int space = line.lastIndexOf(' ');
      if (space <= 0) continue;
      stacks.add(line.substring(0, space));
      counts.add(Long.parseLong(line.substring(space + 1)));
    }
    double maxTvd = Double.parseDouble(args[2]);
    String within = null;
    boolean other = false;
    Map<String, Double> truth = new LinkedHashMap<>();
    List<String[]> depthRules = new ArrayList<>();
    List<String[]> countRules = new ArrayList<>();
    List<String> forbidden = new ArrayList<>();
    for (String line : Files.readAllLines(Paths.get(args[1]))) {
      String[] f = line.trim().split(" ");
      switch (f[0]) {
        case "within": within = f[1]; break;
        case "other": other = true; break;
        case "share": truth.put(line.substring(6, line.lastIndexOf(' ')), Double.parseDouble(f[f.length - 1])); break;
        case "min_depth": depthRules.add(f); break;
        case "forbid": forbidden.add(line.substring(7)); break;
        case "count": {
          // "count FRAME N TOLERANCE": FRAME may contain spaces, N and TOLERANCE do not.
          String rest = line.substring(6);
          int last = rest.lastIndexOf(' ');
          int before = rest.lastIndexOf(' ', last - 1);
          countRules.add(new String[] {rest.substring(0, before), f[f.length - 2], f[f.length - 1]});
          break;
        }
        default: break;
      }
    }
    List<String> failures = new ArrayList<>();
    long total = 0;
    for (long c : counts) total += c;
    System.out.printf("profile: %d samples in %d distinct stacks%n", total, stacks.size());
    if (total == 0) fail("the profile is empty");

    Map<String, Long> measured = new LinkedHashMap<>();
    for (String k : truth.keySet()) measured.put(k, 0L);
    long otherCount = 0, considered = 0, deepEnough = 0;
    for (int i = 0; i < stacks.size(); i++) {
      String[] frames = stacks.get(i).split(";");
      if (within != null && !contains(frames, within)) continue;
      considered += counts.get(i);
      if (!depthRules.isEmpty() && frames.length >= Integer.parseInt(depthRules.get(0)[1])) {
        deepEnough += counts.get(i);
      }
      String category = null;
      for (int j = frames.length - 1; j >= 0 && category == null; j--) {
        for (String k : truth.keySet()) {
          if (frames[j].contains(k)) {
            category = k;
            break;
          }
        }
      }
      if (category != null) {
        measured.merge(category, counts.get(i), Long::sum);
      } else {
        otherCount += counts.get(i);
      }
    }
    long denominator = other ? considered : considered - otherCount;
    System.out.printf("within %s: %d samples (%d in no category)%n", within == null ? "everything" : within,
        considered, otherCount);
    if (!truth.isEmpty() && denominator < 100) failures.add("too few samples to judge: " + denominator);
    double tvd = 0;
    System.out.println("  category                             true   measured");
    for (Map.Entry<String, Double> e : truth.entrySet()) {
      double m = denominator > 0 ? (double) measured.get(e.getKey()) / denominator : 0;
      tvd += Math.abs(m - e.getValue());
      System.out.printf("  %-34s %6.3f %8.3f%n", e.getKey(), e.getValue(), m);
    }
    if (other) {
      double m = denominator > 0 ? (double) otherCount / denominator : 0;
      tvd += m;
      System.out.printf("  %-34s %6.3f %8.3f%n", "(other)", 0.0, m);
    }
    tvd /= 2;
    if (!truth.isEmpty()) {
      System.out.printf("total-variation distance %.4f (limit %.3f)%n", tvd, maxTvd);
      if (tvd > maxTvd) failures.add(String.format("total-variation distance %.4f > %.3f", tvd, maxTvd));
    }
    for (String[] rule : depthRules) {
      int frames = Integer.parseInt(rule[1]);
      double fraction = Double.parseDouble(rule[2]);
      double got = considered > 0 ? (double) deepEnough / considered : 0;
      System.out.printf("stacks at least %d frames deep: %.3f (need %.3f)%n", frames, got, fraction);
      if (got < fraction) failures.add(String.format("only %.3f of the stacks are %d frames deep", got, frames));
    }
    for (String[] rule : countRules) {
      String frame = rule[0];
      long expected = Long.parseLong(rule[1]);
      double tolerance = Double.parseDouble(rule[2]);
      long got = 0;
      for (int i = 0; i < stacks.size(); i++) {
        if (contains(stacks.get(i).split(";"), frame)) got += counts.get(i);
      }
      System.out.printf("samples in %s: %d, expected %d +- %.0f%%%n", frame, got, expected, tolerance * 100);
      if (Math.abs(got - expected) > tolerance * expected) {
        failures.add(String.format("%s has %d samples, expected %d +- %.0f%%", frame, got, expected, tolerance * 100));
      }
    }
    for (String text : forbidden) {
      long bad = 0;
      String example = null;
      for (int i = 0; i < stacks.size(); i++) {
        for (String frame : stacks.get(i).split(";")) {
          if (frame.contains(text)) {
            bad += counts.get(i);
            if (example == null) example = frame;
            break;
          }
        }
      }
      System.out.printf("samples with a frame containing '%s': %d%n", text, bad);
      if (bad > 0) failures.add(bad + " samples have a frame containing '" + text + "', e.g. " + example);
    }
    if (!failures.isEmpty()) fail(String.join("; ", failures));
    System.out.println("PASS");
  }

  static boolean contains(String[] frames, String name) {
    for (String f : frames) if (f.contains(name)) return true;
    return false;
  }

  static void fail(String why) {
    System.out.println("FAIL: " + why);
    System.exit(1);
  }
}
