package jvmkit.test.walk;

/**
 * TruncationMain's rounds in a thread named "deep", started with Thread.start, so that its bottom
 * frame is Thread.run: DEPTH counts from runRounds (Thread.run, the lambda, and on JDK 21 and later
 * Thread.runWith lie below it). Usage: TruncationThreadMain seconds depth...
 */
public final class TruncationThreadMain {
  static void runRounds(String[] args) {
    double seconds = Double.parseDouble(args[0]);
    for (int i = 1; i < args.length; i++) {
      long deadline = System.nanoTime() + (long) (seconds * 1e9);
      TruncationMain.sink += TruncationMain.descend(Integer.parseInt(args[i]) - 2, deadline);
    }
  }

  public static void main(String[] args) throws InterruptedException {
    Thread deep = new Thread(() -> runRounds(args), "deep");
    deep.start();
    deep.join();
  }
}
