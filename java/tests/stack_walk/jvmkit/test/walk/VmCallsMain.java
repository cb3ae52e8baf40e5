package jvmkit.test.walk;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.invoke.CallSite;
import java.lang.invoke.ConstantCallSite;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
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
 *   <li>the bootstrap method of an invokedynamic, which the VM calls to link the call site (in a
 *       class this program assembles itself: javac emits no invokedynamic with a bootstrap method
 *       of the program's own);
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

  /** The bootstrap method of IndyProbe's call site, run by the VM when it links the site. */
  public static CallSite bootstrap(MethodHandles.Lookup lookup, String name, MethodType type) {
    here();
    return new ConstantCallSite(MethodHandles.empty(type));
  }

  static final String INDY_CLASS = "jvmkit.test.walk.IndyProbe";

  /**
   * The class file of IndyProbe: one method, {@code public static void run()}, whose only call is
   * an invokedynamic bootstrapped by {@link #bootstrap}. Class file version 52: no stack map frames
   * needed for code without branches.
   */
  static byte[] indyClassBytes() {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeInt(0xCAFEBABE);
      out.writeShort(0);
      out.writeShort(52);
      out.writeShort(19); // constant pool entries 1..18
      utf8(out, INDY_CLASS.replace('.', '/')); // 1
      out.writeByte(7); // 2 Class
      out.writeShort(1);
      utf8(out, "java/lang/Object"); // 3
      out.writeByte(7); // 4 Class
      out.writeShort(3);
      utf8(out, "run"); // 5
      utf8(out, "()V"); // 6
      utf8(out, "Code"); // 7
      utf8(out, "BootstrapMethods"); // 8
      utf8(out, VmCallsMain.class.getName().replace('.', '/')); // 9
      out.writeByte(7); // 10 Class
      out.writeShort(9);
      utf8(out, "bootstrap"); // 11
      utf8(
          out,
          "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;)"
              + "Ljava/lang/invoke/CallSite;"); // 12
      out.writeByte(12); // 13 NameAndType
      out.writeShort(11);
      out.writeShort(12);
      out.writeByte(10); // 14 Methodref
      out.writeShort(10);
      out.writeShort(13);
      out.writeByte(15); // 15 MethodHandle REF_invokeStatic
      out.writeByte(6);
      out.writeShort(14);
      utf8(out, "probe"); // 16
      out.writeByte(12); // 17 NameAndType probe ()V
      out.writeShort(16);
      out.writeShort(6);
      out.writeByte(18); // 18 InvokeDynamic, bootstrap method 0
      out.writeShort(0);
      out.writeShort(17);
      out.writeShort(0x0021); // public super
      out.writeShort(2);
      out.writeShort(4);
      out.writeShort(0); // interfaces
      out.writeShort(0); // fields
      out.writeShort(1); // methods
      out.writeShort(0x0009); // public static
      out.writeShort(5);
      out.writeShort(6);
      out.writeShort(1); // attributes: Code
      out.writeShort(7);
      out.writeInt(12 + 6);
      out.writeShort(0); // max_stack
      out.writeShort(0); // max_locals
      out.writeInt(6);
      out.write(new byte[] {(byte) 0xBA, 0, 18, 0, 0, (byte) 0xB1}); // invokedynamic #18; return
      out.writeShort(0); // exception table
      out.writeShort(0); // code attributes
      out.writeShort(1); // class attributes: BootstrapMethods
      out.writeShort(8);
      out.writeInt(6);
      out.writeShort(1);
      out.writeShort(15);
      out.writeShort(0);
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static void utf8(DataOutputStream out, String text) throws IOException {
    out.writeByte(1);
    out.writeUTF(text);
  }

  static final byte[] INDY_BYTES = indyClassBytes();

  /** Defines Fresh and Helper itself (from the class path's bytes); probes when the VM asks. */
  static final class FreshLoader extends ClassLoader {
    FreshLoader() {
      super(VmCallsMain.class.getClassLoader());
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.equals(Fresh.class.getName()) && !name.equals(Helper.class.getName())
          && !name.equals(INDY_CLASS)) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c == null) {
          here();
          byte[] bytes = name.equals(INDY_CLASS) ? INDY_BYTES : bytesOf(name);
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
    FreshLoader loader = new FreshLoader();
    Class<?> fresh = Class.forName(Fresh.class.getName(), true, loader);
    // The first run of IndyProbe.run links its call site: the VM calls bootstrap.
    Class.forName(INDY_CLASS, true, loader).getMethod("run").invoke(null);
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
