package jvmkit.test.walk;

/**
 * Frame types with known truth. The main thread warms everything up first (run with -Xbatch, so
 * compilation has finished when a call returns), then starts the measured workers:
 *
 * <ul>
 *   <li>worker-jit: jitOuter -> jitMiddle -> jitLeaf, all compiled and kept out of line
 *       (-XX:CompileCommand=dontinline,jvmkit.test.walk.TypesMain::jit*): JIT frames;
 *   <li>worker-inline: inlOuter (dontinline) with inlLeaf forced inline
 *       (-XX:CompileCommand=inline,jvmkit.test.walk.TypesMain::inlLeaf): inlLeaf INLINE, inlOuter
 *       JIT;
 *   <li>worker-native: nativeOuter sleeping in Thread.sleep: the native method's frame NATIVE.
 *   <li>worker-natinline: natOuter (JIT) with natInl inlined, sleeping in Thread.sleep: samples
 *       taken in native code, where the walk starts from the thread's last Java frame.
 *   <li>worker-stubinline: stubOuter (JIT) with stubInl inlined, copying a large array with
 *       System.arraycopy: samples taken in the arraycopy stub, a runtime stub with no Java frame
 *       of its own, where the walk starts from the stub's caller.
 *   <li>worker-calls: callOuter calling the tiny callLeaf in a loop. Under -Xint a large part of
 *       its time is spent in the interpreter's method entry, before callLeaf's frame exists.
 * </ul>
 *
 * With -Xint every frame is INTERPRETER. The agent's option "truth" names the expected type of
 * each method; it prints the confusion matrix. Usage: TypesMain seconds [workers...]
 */
public final class TypesMain {
  static volatile long sink;

  static long jitLeaf(int n) {
    long s = 0;
    for (int i = 0; i < n; i++) {
      s += (s >>> 7) ^ (i * 31L);
    }
    return s;
  }

  static long jitMiddle(int n) {
    return jitLeaf(n) + 1;
  }

  static long jitOuter(int n) {
    return jitMiddle(n) ^ 3;
  }

  static long inlLeaf(int n) {
    long s = 0;
    for (int i = 0; i < n; i++) {
      s += (s >>> 5) ^ (i * 17L);
    }
    return s;
  }

  static long inlOuter(int n) {
    return inlLeaf(n) + inlLeaf(n + 1);
  }

  static long nativeOuter() {
    try {
      Thread.sleep(1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 1;
  }

  // Inlined into natOuter (-XX:CompileCommand=inline): a sample taken while the thread sleeps in
  // native code must still type natInl INLINE and natOuter JIT.
  static long natInl(long ms) {
    try {
      // Not sleep(0): that yields the CPU, and next to busy processes the warm-up's 30,000 yields
      // took a minute.
      if (ms != 0) Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return ms + 1;
  }

  static long natOuter(long ms) {
    return natInl(ms) * 3;
  }

  static final long[] COPY_FROM = new long[1 << 16];
  static final long[] COPY_TO = new long[1 << 16];

  // Inlined into stubOuter (-XX:CompileCommand=inline): the copy runs in HotSpot's arraycopy stub
  // (512 KiB per call), so most samples of this worker are taken inside the stub.
  static long stubInl(int round, int length) {
    COPY_FROM[round & 15] = round;
    System.arraycopy(COPY_FROM, 0, COPY_TO, 0, length);
    return COPY_TO[round & 15];
  }

  static long stubOuter(int round, int length) {
    return stubInl(round, length) + 1;
  }

  static int callLeaf(int i) {
    return i ^ (i >>> 3);
  }

  static long callOuter(int n) {
    long s = 0;
    for (int i = 0; i < n; i++) {
      s += callLeaf(i);
    }
    return s;
  }

  static void work(String kind, long deadline) {
    long s = 0;
    while (System.nanoTime() < deadline) {
      switch (kind) {
        case "jit" -> s += jitOuter(5_000);
        case "inline" -> s += inlOuter(2_500);
        case "natinline" -> s += natOuter(1);
        case "stubinline" -> s += stubOuter((int) s, COPY_FROM.length);
        case "calls" -> s += callOuter(10_000);
        default -> s += nativeOuter();
      }
    }
    sink += s;
  }

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 5;
    String[] kinds =
        args.length > 1
            ? java.util.Arrays.copyOfRange(args, 1, args.length)
            : new String[] {"jit", "inline", "native", "natinline", "stubinline"};
    // Warm-up: enough calls for C2 (tiered: 15,000 invocations or loops), compiled synchronously
    // under -Xbatch. Skipped under -Xint, where nothing is compiled: interpreted, it took 5-10 s
    // of CPU, and next to busy processes more than the test's whole time limit.
    long s = 0;
    boolean interpretedOnly = System.getProperty("java.vm.info", "").contains("interpreted mode");
    for (int i = 0; i < (interpretedOnly ? 0 : 30_000); i++) {
      // natOuter sleeps now and then, so that its compiled code keeps the sleeping path.
      s += jitOuter(200) + inlOuter(100) + natOuter(i % 512 == 0 ? 1 : 0) + stubOuter(i, 16);
    }
    nativeOuter();
    sink += s;
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    Thread[] threads = new Thread[kinds.length];
    for (int i = 0; i < kinds.length; i++) {
      String kind = kinds[i];
      threads[i] = new Thread(() -> work(kind, deadline), "worker-" + kind);
      threads[i].start();
    }
    for (Thread t : threads) {
      t.join();
    }
  }
}
