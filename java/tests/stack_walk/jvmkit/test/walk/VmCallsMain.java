package jvmkit.test.walk;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.security.ProtectionDomain;

/**
 * Java code that the VM calls in the middle of a stack: each round loads two classes afresh in a
 * new class loader, and probes (Agent.probe(), mode=probe of the test agent) from
 *
 * <ul>
 *   <li>a static initialiser, run by the VM when the class is first used;
 *   <li>ClassLoader.loadClass, which the VM calls to resolve the class's reference to another;
 *   <li>a method called through reflection (on JDK 17 the first calls of a Method go through
 *       the native accessor, which calls Java from the VM);
 *   <li>a Runnable called back from native code through JNI;
 *   <li>a ClassFileTransformer, when Fresh is loaded and when it is retransformed (only when this
 *       class is also the Java agent: -javaagent with a jar whose Premain-Class is
 *       VmCallsMain$Transforms);
 *   <li>plain Java, as a control.
 * </ul>
 *
 * Every probe compares the unbiased trace of that moment with GetStackTrace's, frame by frame.
 * The probes run under a few frames of recursion, so that a trace cut at the VM's call loses
 * frames that GetStackTrace has.
 *
 * <p>Usage: VmCallsMain rounds [depth] [spin=MICROS] [probe=no]
 */
public final class VmCallsMain {
  static volatile long sink;

  /** Loaded afresh each round: its initialiser probes, and resolving Helper calls loadClass. */
  public static final class Fresh {
    static final long VALUE;

    static {
      here();
      VALUE = Helper.value();
    }

    public static long work() {
      here();
      return VALUE + 1;
    }
  }

  /** The class Fresh refers to: the VM asks Fresh's loader for it. */
  public static final class Helper {
    static long value() {
      return 7;
    }
  }

  /** Defines Fresh and Helper itself (from the class path's bytes); probes when the VM asks. */
  static final class FreshLoader extends ClassLoader {
    FreshLoader() {
      super(VmCallsMain.class.getClassLoader());
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.equals(Fresh.class.getName()) && !name.equals(Helper.class.getName())) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c == null) {
          here();
          byte[] bytes = bytesOf(name);
          c = defineClass(name, bytes, 0, bytes.length);
        }
        return c;
      }
    }

    private static byte[] bytesOf(String name) throws ClassNotFoundException {
      String path = name.replace('.', '/') + ".class";
      try (InputStream in = VmCallsMain.class.getClassLoader().getResourceAsStream(path)) {
        if (in == null) {
          throw new ClassNotFoundException(name);
        }
        return in.readAllBytes();
      } catch (IOException e) {
        throw new ClassNotFoundException(name, e);
      }
    }
  }

  static volatile boolean probing = true;
  static long spinNanos;

  /**
   * A probe point: compares the two traces of this moment (mode=probe), then spins in Java for a
   * while, for a sampler to catch this thread running Java code here.
   */
  public static void here() {
    if (probing) {
      Agent.probe();
    }
    if (spinNanos > 0) {
      long end = System.nanoTime() + spinNanos;
      long s = 0;
      while (System.nanoTime() < end) {
        s += s * 31 + 7;
      }
      sink += s;
    }
  }

  /** The Java agent: a transformer that probes for Fresh (loaded, and retransformed). */
  public static final class Transforms implements ClassFileTransformer {
    static Instrumentation instrumentation;

    public static void premain(String args, Instrumentation inst) {
      instrumentation = inst;
      inst.addTransformer(new Transforms(), true);
    }

    @Override
    public byte[] transform(
        ClassLoader loader, String name, Class<?> redefined, ProtectionDomain domain, byte[] bytes) {
      if (name != null && name.endsWith("VmCallsMain$Fresh")) {
        here();
      }
      return null;
    }
  }

  static void round() throws Exception {
    Class<?> fresh = Class.forName(Fresh.class.getName(), true, new FreshLoader());
    if (Transforms.instrumentation != null) {
      Transforms.instrumentation.retransformClasses(fresh);
    }
    Method work = fresh.getMethod("work");
    sink += (Long) work.invoke(null);
    Agent.callBack(VmCallsMain::here);
    here();
  }

  static void nested(int depth) throws Exception {
    if (depth > 0) {
      nested(depth - 1);
    } else {
      round();
    }
  }

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int depth = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    // spin=MICROS: spin that long at each probe point (for a sampler); probe=no: no probes.
    for (int i = 2; i < args.length; i++) {
      if (args[i].startsWith("spin=")) {
        spinNanos = Long.parseLong(args[i].substring(5)) * 1000;
      } else if (args[i].equals("probe=no")) {
        probing = false;
      }
    }
    // On a thread of its own, so that a sampler can require runRounds (just above Thread.run) in
    // every trace: a trace cut at one of the VM's calls lacks it.
    Thread worker = new Thread(() -> runRounds(rounds, depth), "worker-vm");
    worker.start();
    worker.join();
    if (failure != null) {
      throw new AssertionError("the rounds failed", failure);
    }
  }

  static Throwable failure;

  static void runRounds(int rounds, int depth) {
    try {
      for (int i = 0; i < rounds; i++) {
        nested(depth + (i % 3));
      }
    } catch (Throwable e) {
      failure = e;
    }
  }
}
