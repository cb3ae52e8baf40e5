package jvmkit.bench.nativestate;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;

/**
 * Native state benchmark without JMH: a Java loop calls one native method per operation, so each
 * figure is the full cost a JNI peer pays (the call into native code included). Four variants
 * (jvmkit, the Classpath design, JVMTI tags, a long field) x three operations (get; set = insert of
 * a new entry; remove), at 1 and 2 threads. Each thread works on its own OBJECTS objects, all in the
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
  static final String[] OPS = {"get", "set", "remove"};
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

  /** One run: about 2 million timed operations; returns wall and CPU ns per timed operation. */
  static double[] run(int v, int op, Target[] objs, CyclicBarrier phase) throws Exception {
    int rounds = Math.max(1, 2_000_000 / objs.length);
    long timed = 0;
    long cpu = 0;
    long ops = 0;
    long acc = 0;
    for (int r = 0; r < rounds; r++) {
      // Set phase (timed when op == set): every object gets a state.
      if (phase != null) phase.await();
      long c0 = op == 1 ? MX.getCurrentThreadCpuTime() : 0;
      long t0 = System.nanoTime();
      for (Target o : objs) {
        acc += set(v, o);
      }
      long t1 = System.nanoTime();
      if (op == 1) {
        cpu += MX.getCurrentThreadCpuTime() - c0;
        timed += t1 - t0;
        ops += objs.length;
      }
      if (op == 0) {
        if (phase != null) phase.await();
        c0 = MX.getCurrentThreadCpuTime();
        t0 = System.nanoTime();
        for (Target o : objs) {
          acc += get(v, o);
        }
        timed += System.nanoTime() - t0;
        cpu += MX.getCurrentThreadCpuTime() - c0;
        ops += objs.length;
      }
      if (phase != null) phase.await();
      c0 = op == 2 ? MX.getCurrentThreadCpuTime() : 0;
      t0 = System.nanoTime();
      for (Target o : objs) {
        acc += remove(v, o);
      }
      t1 = System.nanoTime();
      if (op == 2) {
        cpu += MX.getCurrentThreadCpuTime() - c0;
        timed += t1 - t0;
        ops += objs.length;
      }
    }
    sink = acc;
    return new double[] {(double) timed / ops, (double) cpu / ops};
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
