package jvmkit.bench.nativestate;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;

/**
 * Native state benchmark without JMH: a Java loop calls one native method per operation, so each
 * figure is the full cost a JNI peer pays (the call into native code included). Four variants
 * (jvmkit, the Classpath design, JVMTI tags, a long field) x four operations (get: reads of a
 * populated table; set = insert of a new entry; remove; get_after_set: the first read of entries
 * just written, see run()), at 1 and 2 threads. Each thread works on its own OBJECTS objects, all in the
 * same table. Per configuration: WARMUP runs discarded, RUNS runs measured; reported as ns per
 * operation per thread, the median and the minimum of the runs (on a shared machine the minimum is
 * the figure least disturbed by other processes; the median shows the spread), and the minimum of
 * the thread CPU time per operation (time the thread actually ran: on a loaded machine it excludes
 * the time other processes took, but also the time a thread spent blocked on a contended lock).
 * With several threads, every phase (set all, get all, remove all) starts on a barrier, so an
 * operation is timed while the other threads run the same operation: "get at 2 threads" means
 * two threads reading at once, not one reading while the other inserts or removes.
 * Usage: StateBench [runs] [objects] [variant,variant...] [max threads]
 */
public final class StateBench {
  static final class Target {
    final int native_state = System.identityHashCode(this);
    long handle;
  }

  static native boolean init(Class<?> target);

  static native long nop(Object o);

  static native long jkGet(Object o);

  static native long jkSet(Object o, long s);

  static native long jkRemove(Object o);

  static native long cpGet(Object o);

  static native long cpSet(Object o, long s);

  static native long cpRemove(Object o);

  static native long tagGet(Object o);

  static native long tagSet(Object o, long s);

  static native long tagRemove(Object o);

  static native long fldGet(Object o);

  static native long fldSet(Object o, long s);

  static native long fldRemove(Object o);

  static native long exceptionCheck(Object o);

  static native long getIntField(Object o);

  static native long isSameObject(Object o);

  static native long isSameWeak(Object o);

  static final String[] VARIANTS = {"jvmkit", "classpath", "jvmti_tag", "long_field", "empty_call",
      "jni_ExceptionCheck", "jni_GetIntField", "jni_IsSameObject", "jni_IsSameObject_weak"};
  static final String[] OPS = {"get", "set", "remove", "get_after_set"};
  static final int WARMUP = 3;
  static volatile long sink;

  public static void main(String[] args) throws Exception {
    System.loadLibrary("native_state_bench");
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 7;
    int objects = args.length > 1 ? Integer.parseInt(args[1]) : 1024;
    java.util.List<String> only = args.length > 2 ? Arrays.asList(args[2].split(",")) : Arrays.asList(VARIANTS);
    int maxThreads = args.length > 3 ? Integer.parseInt(args[3]) : 2;
    if (!init(Target.class)) {
      throw new IllegalStateException("init failed (JVMTI can_tag_objects unavailable?)");
    }
    String jdk = System.getProperty("java.runtime.version");
    System.out.printf("# JDK %s, %d objects per thread, %d runs (median), %d warm-up runs%n", jdk, objects, runs,
        WARMUP);
    System.out.println("# threads variant op median_ns min_ns min_cpu_ns  (per operation per thread)");
    for (int threads = 1; threads <= maxThreads; threads++) {
      for (int v = 0; v < VARIANTS.length; v++) {
        for (int op = 0; op < OPS.length; op++) {
          if ((v >= 4 && op > 0) || !only.contains(VARIANTS[v])) {
            continue;  // the empty call and the JNI probes have one operation
          }
          double[] ns = measure(v, op, threads, objects, runs);
          System.out.printf(Locale.ROOT, "%d %s %s %.1f %.1f %.1f%n", threads, VARIANTS[v], OPS[op], ns[0], ns[1],
              ns[2]);
        }
      }
    }
  }

  static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

  /** Median and minimum over RUNS of the mean wall ns/op of the threads, and minimum CPU ns/op. */
  static double[] measure(int v, int op, int threads, int objects, int runs) throws Exception {
    double[][] perRun = new double[threads][WARMUP + runs];
    double[][] perRunCpu = new double[threads][WARMUP + runs];
    CyclicBarrier barrier = new CyclicBarrier(threads);
    Thread[] ts = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      final int me = t;
      ts[t] = new Thread(() -> {
        Target[] objs = new Target[objects];
        for (int i = 0; i < objects; i++) {
          objs[i] = new Target();
        }
        try {
          for (int r = 0; r < WARMUP + runs; r++) {
            barrier.await();
            double[] wallCpu = run(v, op, objs, threads > 1 ? barrier : null);
            perRun[me][r] = wallCpu[0];
            perRunCpu[me][r] = wallCpu[1];
          }
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      });
      ts[t].start();
    }
    for (Thread t : ts) {
      t.join();
    }
    double[] means = new double[runs];
    double minCpu = Double.MAX_VALUE;
    for (int r = 0; r < runs; r++) {
      double sum = 0;
      double cpu = 0;
      for (int t = 0; t < threads; t++) {
        sum += perRun[t][WARMUP + r];
        cpu += perRunCpu[t][WARMUP + r];
      }
      means[r] = sum / threads;
      minCpu = Math.min(minCpu, cpu / threads);
    }
    Arrays.sort(means);
    return new double[] {means[runs / 2], means[0], minCpu};
  }

  static final int GET = 0;
  static final int SET = 1;
  static final int REMOVE = 2;
  static final int GET_AFTER_SET = 3;

  /** Wall and thread CPU time of the timed loops of one run. */
  static final class Timer {
    long wall;
    long cpu;
    long ops;
    long wallStart;
    long cpuStart;

    void start() {
      cpuStart = MX.getCurrentThreadCpuTime();
      wallStart = System.nanoTime();
    }

    void stop(int n) {
      wall += System.nanoTime() - wallStart;
      cpu += MX.getCurrentThreadCpuTime() - cpuStart;
      ops += n;
    }
  }

  /**
   * One run: about 2 million timed operations; returns wall and CPU ns per timed operation.
   * get: the objects are set once, then read in rounds (a table that is read far more often than
   * written, the case get_state is for). set, remove, get_after_set: every round sets every
   * object, (get_after_set: reads each once,) then removes every object, and only the named
   * phase is timed; get_after_set is the first read of entries the threads have just written, so
   * at 2 threads it includes the cache-line transfers between the CPUs that this costs.
   */
  static double[] run(int v, int op, Target[] objs, CyclicBarrier phase) throws Exception {
    int rounds = Math.max(1, 2_000_000 / objs.length);
    Timer timer = new Timer();
    long acc = 0;
    if (op == GET) {
      await(phase);
      acc += setAll(v, objs, null);
    }
    for (int r = 0; r < rounds; r++) {
      if (op != GET) {
        await(phase);
        acc += setAll(v, objs, op == SET ? timer : null);
      }
      if (op == GET || op == GET_AFTER_SET) {
        await(phase);
        acc += getAll(v, objs, timer);
      }
      if (op != GET) {
        await(phase);
        acc += removeAll(v, objs, op == REMOVE ? timer : null);
      }
    }
    if (op == GET) {
      await(phase);
      acc += removeAll(v, objs, null);
    }
    sink = acc;
    return new double[] {(double) timer.wall / timer.ops, (double) timer.cpu / timer.ops};
  }

  /** With several threads, every phase starts on the barrier (see the class comment). */
  static void await(CyclicBarrier phase) throws Exception {
    if (phase != null) {
      phase.await();
    }
  }

  static long setAll(int v, Target[] objs, Timer timer) {
    long acc = 0;
    if (timer != null) timer.start();
    for (Target o : objs) {
      acc += set(v, o);
    }
    if (timer != null) timer.stop(objs.length);
    return acc;
  }

  static long getAll(int v, Target[] objs, Timer timer) {
    long acc = 0;
    timer.start();
    for (Target o : objs) {
      acc += get(v, o);
    }
    timer.stop(objs.length);
    return acc;
  }

  static long removeAll(int v, Target[] objs, Timer timer) {
    long acc = 0;
    if (timer != null) timer.start();
    for (Target o : objs) {
      acc += remove(v, o);
    }
    if (timer != null) timer.stop(objs.length);
    return acc;
  }

  static long get(int v, Target o) {
    switch (v) {
      case 0:
        return jkGet(o);
      case 1:
        return cpGet(o);
      case 2:
        return tagGet(o);
      case 3:
        return fldGet(o);
      case 4:
        return nop(o);
      case 5:
        return exceptionCheck(o);
      case 6:
        return getIntField(o);
      case 7:
        return isSameObject(o);
      default:
        return isSameWeak(o);
    }
  }

  static long set(int v, Target o) {
    long s = ((long) o.native_state << 4) | 8;
    switch (v) {
      case 0:
        return jkSet(o, s);
      case 1:
        return cpSet(o, s);
      case 2:
        return tagSet(o, s);
      case 3:
        return fldSet(o, s);
      default:
        return 0;
    }
  }

  static long remove(int v, Target o) {
    switch (v) {
      case 0:
        return jkRemove(o);
      case 1:
        return cpRemove(o);
      case 2:
        return tagRemove(o);
      case 3:
        return fldRemove(o);
      default:
        return 0;
    }
  }
}
