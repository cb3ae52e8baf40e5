package jvmkit.test.walk;

import java.io.IOException;
import java.io.InputStream;

/**
 * The shapes of stack where AsyncGetCallTrace stops early below a call from the VM back into Java,
 * run on the main thread and on a thread attached through JNI (neither has Thread.run at its
 * bottom): class loading through a custom loader that the VM calls, class initialisation, lambda
 * bootstrap (LambdaMetafactory, called by the VM to link an invokedynamic call site), each met by
 * compiled code (see ShapesPayload), and Object.clone of large arrays from compiled code.
 *
 * <p>Arguments: the number of unbiased traces the test agent must have checked on each thread
 * (Agent.bottomChecked) before the program ends, and a limit in seconds after which it ends anyway
 * (the agent then reports too few checked traces); or "rounds=N": N rounds on each thread, for
 * agents that check something else (the requests of JVMTI callbacks, whose number is set by the
 * rounds' allocations).
 */
public final class ShapesMain {
  static volatile Object sink;
  static volatile long counter;
  private static byte[] payload;
  private static byte[] payloadDep;

  private ShapesMain() {}

  public static void main(String[] args) throws Exception {
    final long rounds = args[0].startsWith("rounds=") ? Long.parseLong(args[0].substring(7)) : -1;
    long want = rounds >= 0 ? 0 : Long.parseLong(args[0]);
    long end = rounds >= 0 ? Long.MAX_VALUE : System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
    payload = bytesOf("ShapesPayload.class");
    payloadDep = bytesOf("ShapesPayloadDep.class");
    warmUp();
    Thread attached = new Thread(() -> Agent.runAttached("attached-shapes", new AttachedRounds(want, end, rounds)));
    attached.setDaemon(true);
    attached.start();
    rounds("main", want, end, rounds);
    attached.join();
  }

  /** The attached thread's work; its run() is that thread's bottom frame. */
  static final class AttachedRounds implements Runnable {
    private final long want;
    private final long end;
    private final long rounds;

    AttachedRounds(long want, long end, long rounds) {
      this.want = want;
      this.end = end;
      this.rounds = rounds;
    }

    @Override
    public void run() {
      rounds("attached-", want, end, rounds);
    }
  }

  /**
   * Rounds of every shape until the agent has checked WANT traces of THREAD (or END passed), or
   * exactly ROUNDS of them when ROUNDS >= 0.
   */
  static void rounds(String thread, long want, long end, long rounds) {
    int round = 0;
    while (rounds >= 0 ? round < rounds : Agent.bottomChecked(thread) < want && System.nanoTime() < end) {
      round(round++);
    }
    System.out.println(thread + ": " + round + " rounds, " + Agent.bottomChecked(thread) + " traces checked");
  }

  static void round(int i) {
    try {
      Class<?> c = Class.forName(ShapesPayload.class.getName(), true, new ShapesLoader());
      sink = c.getMethod("run", int.class).invoke(null, 1000);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
    for (int k = 0; k < 20; k++) sink = cloneBig(k);
  }

  /** Compiles allocate, cloneBig and spin before the first round calls them from an initializer. */
  static void warmUp() {
    for (int i = 0; i < 20_000; i++) {
      sink = allocate(i);
      if ((i & 1023) == 0) sink = cloneBig(i);
      spin(100);
    }
  }

  public static int[] allocate(int i) {
    return new int[16 + (i & 63)];
  }

  /** Clones arrays of 4 MB (outside any TLAB: the VM's slow path, with a native Object.clone frame). */
  public static int cloneBig(int i) {
    long[] big = BIG;
    long[] copy = big.clone();
    Object[] refs = REFS.clone();
    return copy.length + refs.length + i;
  }

  private static final long[] BIG = new long[512 * 1024];
  private static final Object[] REFS = new Object[256 * 1024];

  public static void spin(long nanos) {
    long until = System.nanoTime() + nanos;
    while (System.nanoTime() < until) counter++;
  }

  private static byte[] bytesOf(String resource) throws IOException {
    try (InputStream in = ShapesMain.class.getResourceAsStream(resource)) {
      return in.readAllBytes();
    }
  }

  /**
   * Defines ShapesPayload and ShapesPayloadDep itself (new classes each round) and delegates the
   * rest. Reading the class bytes is slowed down on purpose, so that samples land in loadClass
   * below the VM's call into it.
   */
  static final class ShapesLoader extends ClassLoader {
    ShapesLoader() {
      super(ShapesMain.class.getClassLoader());
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      byte[] bytes = name.equals(ShapesPayload.class.getName())      ? payload
                     : name.equals(ShapesPayloadDep.class.getName()) ? payloadDep
                                                                      : null;
      if (bytes == null) return super.loadClass(name, resolve);
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c != null) return c;
        spin(200_000);
        return defineClass(name, bytes, 0, bytes.length);
      }
    }
  }
}
