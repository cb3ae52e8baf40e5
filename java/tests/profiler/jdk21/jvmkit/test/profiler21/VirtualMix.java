package jvmkit.test.profiler21;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Virtual threads with known truth, for the profiler's cpu and lock events (JDK 21+; the test runs
 * it on 25).
 *
 * <p>CPU: 10,000 virtual threads each run one task of three kinds, 5:3:2 by count, each the same
 * number of iterations of the same loop in its own method (taskFifty, taskThirty, taskTwenty): 50,
 * 30 and 20 % of the CPU spent under runTask. The three methods are compiled first (warmUp), so
 * that no kind runs interpreted longer than another.
 *
 * <p>Locks: platform threads hold three locks in turn (a monitor, a ReentrantLock, and a second
 * ReentrantLock), each for a few ms at a time; virtual threads wait for them: three for the monitor
 * (since JDK 24 such a thread unmounts while it waits, and may enter on another carrier), three for
 * the first ReentrantLock (a virtual thread's park yields: it unmounts until unparked), and one for
 * the second, inside a class initializer (PinnedInit, initialised afresh each time in a new class
 * loader): the thread is pinned there, below the VM's call of the initializer, so its park parks
 * the carrier in Unsafe.park. A monitor does not pin since JDK 24, hence the initializer. The truth
 * is the time each waiter measured around its acquisitions, by site: waitMonitor, waitReentrant,
 * waitPinned. Between two tries a waiter sleeps (Thread.sleep parks a virtual thread: not a lock
 * wait, and the truth forbids VirtualThread.sleepNanos in the lock profile).
 *
 * <p>Usage: VirtualMix CPU_TRUTH LOCK_TRUTH ITERATIONS_PER_TASK LOCK_SECONDS
 */
public final class VirtualMix {
  static final int TASKS = 10_000;
  static final String[] KINDS = {"VirtualMix.taskFifty", "VirtualMix.taskThirty", "VirtualMix.taskTwenty"};
  static final int[] KIND_OF_TENTH = {0, 1, 2, 0, 1, 0, 2, 0, 1, 0};  // 5:3:2, interleaved
  static volatile long sink;

  static final Object MONITOR = new Object();
  static final ReentrantLock LOCK = new ReentrantLock();
  static final ReentrantLock PINNED_LOCK = new ReentrantLock();
  static volatile boolean running = true;
  static final ThreadLocal<Long> PINNED_WAIT = new ThreadLocal<>();

  public static void main(String[] args) throws Exception {
    long iterations = Long.parseLong(args[2]);
    double lockSeconds = Double.parseDouble(args[3]);
    warmUp(iterations);
    long[] cpu = runTasks(iterations);
    long[] waited = runLocks(lockSeconds);
    writeTruth(args[0], "within jvmkit.test.profiler21.VirtualMix.runTask", KINDS, cpu, List.of());
    writeTruth(args[1], "within jvmkit.test.profiler21.VirtualMix.wait",
        new String[] {"VirtualMix.waitMonitor", "VirtualMix.waitReentrant", "VirtualMix.waitPinned"}, waited,
        List.of("forbid VirtualThread.sleepNanos"));
  }

  // --- CPU ---

  static long taskFifty(long n) {
    long x = n | 1;
    for (long i = 0; i < n; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
    }
    return x;
  }

  static long taskThirty(long n) {
    long x = n | 1;
    for (long i = 0; i < n; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
    }
    return x;
  }

  static long taskTwenty(long n) {
    long x = n | 1;
    for (long i = 0; i < n; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
    }
    return x;
  }

  static long runTask(int kind, long n) {
    switch (kind) {
      case 0: return taskFifty(n);
      case 1: return taskThirty(n);
      default: return taskTwenty(n);
    }
  }

  /** Compiles the three tasks (and runTask) before the measured part, outside runTask. */
  static void warmUp(long n) {
    for (int round = 0; round < 20_000; round++) {
      sink += taskFifty(n / 64) + taskThirty(n / 64) + taskTwenty(n / 64);
    }
  }

  /** Runs the tasks, one virtual thread each; returns the iterations run per kind. */
  static long[] runTasks(long n) throws InterruptedException {
    AtomicLongArray done = new AtomicLongArray(KINDS.length);
    CountDownLatch finished = new CountDownLatch(TASKS);
    try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < TASKS; i++) {
        int kind = KIND_OF_TENTH[i % 10];
        executor.submit(() -> {
          sink += runTask(kind, n);
          done.addAndGet(kind, n);
          finished.countDown();
        });
      }
      finished.await();
    }
    long[] out = new long[KINDS.length];
    for (int k = 0; k < out.length; k++) out[k] = done.get(k);
    return out;
  }

  // --- Locks ---

  static long[] runLocks(double seconds) throws Exception {
    List<Thread> holders = new ArrayList<>();
    holders.add(Thread.ofPlatform().name("monitor-holder").start(() -> holdMonitor(new Random(1))));
    holders.add(Thread.ofPlatform().name("lock-holder").start(() -> hold(LOCK, new Random(2), 1_000_000)));
    holders.add(Thread.ofPlatform().name("pinned-holder").start(() -> hold(PINNED_LOCK, new Random(3), 2_000_000)));
    AtomicLongArray waited = new AtomicLongArray(3);
    List<Thread> waiters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      waiters.add(Thread.ofVirtual().name("monitor-waiter-" + i).start(() -> waiter(waited, 0)));
      waiters.add(Thread.ofVirtual().name("lock-waiter-" + i).start(() -> waiter(waited, 1)));
    }
    waiters.add(Thread.ofVirtual().name("pinned-waiter").start(() -> waiter(waited, 2)));
    Thread.sleep((long) (seconds * 1000));  // the length of the lock part
    running = false;
    for (Thread t : waiters) t.join();
    for (Thread t : holders) t.join();
    long[] out = new long[3];
    for (int k = 0; k < 3; k++) out[k] = waited.get(k);
    System.out.printf("waited: monitor %d ms, reentrant %d ms, pinned %d ms%n", out[0] / 1_000_000,
        out[1] / 1_000_000, out[2] / 1_000_000);
    return out;
  }

  static void holdMonitor(Random random) {
    while (running) {
      synchronized (MONITOR) {
        pause(2_000_000 + random.nextInt(4_000_000));
      }
      pause(100_000);
    }
  }

  static void hold(ReentrantLock lock, Random random, int base) {
    while (running) {
      lock.lock();
      try {
        pause(base + random.nextInt(base));
      } finally {
        lock.unlock();
      }
      pause(100_000);
    }
  }

  static void waiter(AtomicLongArray waited, int site) {
    while (running) {
      long w;
      switch (site) {
        case 0: w = waitMonitor(); break;
        case 1: w = waitReentrant(); break;
        default: w = pinnedSection(); break;
      }
      waited.addAndGet(site, w);
      pause(300_000);
    }
  }

  static long waitMonitor() {
    long start = System.nanoTime();
    synchronized (MONITOR) {
      sink++;
      return System.nanoTime() - start;
    }
  }

  static long waitReentrant() {
    long start = System.nanoTime();
    LOCK.lock();
    try {
      sink++;
      return System.nanoTime() - start;
    } finally {
      LOCK.unlock();
    }
  }

  /** Called by PinnedInit's initializer: the virtual thread is pinned here. */
  public static void waitPinned() {
    long start = System.nanoTime();
    PINNED_LOCK.lock();
    try {
      sink++;
      PINNED_WAIT.set(System.nanoTime() - start);
    } finally {
      PINNED_LOCK.unlock();
    }
  }

  /** Initialises a fresh copy of PinnedInit, whose initializer waits (waitPinned); returns the wait. */
  static long pinnedSection() {
    try {
      Class.forName(PinnedInit.class.getName(), true, new OneShotLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
    return PINNED_WAIT.get();
  }

  /** Defines its own PinnedInit (so that each one is initialised again); the rest from the parent. */
  static final class OneShotLoader extends ClassLoader {
    static final byte[] BYTES = classBytes();

    OneShotLoader() {
      super(VirtualMix.class.getClassLoader());
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.equals(PinnedInit.class.getName())) return super.loadClass(name, resolve);
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        return c != null ? c : defineClass(name, BYTES, 0, BYTES.length);
      }
    }

    static byte[] classBytes() {
      try (InputStream in = VirtualMix.class.getResourceAsStream("PinnedInit.class")) {
        return in.readAllBytes();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** Sleeps about NANOS. */
  static void pause(long nanos) {
    try {
      Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static void writeTruth(String path, String within, String[] names, long[] weights, List<String> extra)
      throws IOException {
    long sum = 0;
    for (long w : weights) sum += w;
    List<String> lines = new ArrayList<>();
    lines.add(within);
    for (int i = 0; i < names.length; i++) lines.add("share " + names[i] + " " + (sum > 0 ? (double) weights[i] / sum : 0));
    lines.addAll(extra);
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Paths.get(path)))) {
      for (String l : lines) out.println(l);
    }
    System.out.println("truth: " + String.join("; ", lines));
  }
}
