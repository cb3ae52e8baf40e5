package jvmkit.test.profiler;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.LongUnaryOperator;
import java.util.stream.Stream;

/**
 * A workload for native frames (cstack=native) while HotSpot's own threads work hard, in one of
 * two phases; the main thread's CPU is split between three methods with shares known by
 * construction (its CPU time measured around each call, as in {@link Ratios}):
 *
 * <ul>
 *   <li>{@code jit}: a thread "jit-gen" defines classes without end (bytes written here, each
 *       class's method different: random arithmetic in a loop) and calls each 12,000 times, so
 *       that C1 and then C2 compile every one of them; the main thread runs {@code jitDefine}
 *       (defines, verifies, links and first runs a fresh class: class loading, the interpreter and
 *       their runtime calls), {@code jitCall} (calls earlier fresh classes through one megamorphic
 *       interface call) and {@code jitWork} (plain arithmetic), 40/35/25 of its CPU time.
 *   <li>{@code gc}: the main thread allocates without end for a small heap (the test gives
 *       -Xmx128m): {@code gcShort} objects that die at once, {@code gcMedium} 1-4 KB arrays kept in
 *       a 20 MB ring until a random later call replaces them (they survive young collections, get
 *       promoted and make the old generation work), and {@code gcCompute} plain arithmetic,
 *       40/40/20 of its CPU time.
 * </ul>
 *
 * <p>At the end the program writes the main thread's truth (see {@link Truth}) and, in KINDS_FILE,
 * the CPU time each thread of the process used by then, from the kernel
 * ({@code /proc/self/task/TID/schedstat}, nanoseconds) with its name ({@code comm}): lines
 * "cpu NS NAME". It runs until the main thread used CPU_SECONDS of CPU time (at most 60 s of wall
 * time), so that a busy host lengthens the run rather than thins the profile.
 *
 * <p>Usage: NativeJitGc jit|gc CPU_SECONDS TRUTH_FILE KINDS_FILE
 */
public final class NativeJitGc {
  static long sink;
  static final Random RANDOM = new Random(17);

  public static void main(String[] args) throws Exception {
    String phase = args[0];
    long budget = (long) (Double.parseDouble(args[1]) * 1e9);
    String[] names;
    int[] tenths;
    Thread generator = null;
    if (phase.equals("jit")) {
      names = new String[] {"NativeJitGc.jitDefine", "NativeJitGc.jitCall", "NativeJitGc.jitWork"};
      tenths = new int[] {40, 35, 25};
      for (int i = 0; i < 16; i++) pool.add(FreshClasses.next(ownLoader()));
      generator = new Thread(NativeJitGc::generate, "jit-gen");
      generator.setDaemon(true);
      generator.start();
    } else if (phase.equals("gc")) {
      names = new String[] {"NativeJitGc.gcShort", "NativeJitGc.gcMedium", "NativeJitGc.gcCompute"};
      tenths = new int[] {40, 40, 20};
    } else {
      throw new IllegalArgumentException("phase: jit or gc, not " + phase);
    }
    int offset = phase.equals("jit") ? 0 : 3;
    long[] cpu = new long[3];
    long start = Truth.cpuNanos();
    long wallEnd = System.nanoTime() + 60_000_000_000L;
    while (Truth.cpuNanos() - start < budget && System.nanoTime() < wallEnd) {
      // 0.5 to 4.5 ms of CPU per round, in the phase's shares; random lengths, so that nothing
      // repeats with a period a fixed sampling interval could alias with.
      long slice = 500_000L + RANDOM.nextInt(4_000_000);
      for (int i = 0; i < 3; i++) cpu[i] += runFor(offset + i, slice * tenths[i] / 100);
    }
    // The threads' CPU time while jit-gen still runs (an ended thread leaves /proc/self/task).
    writeThreadCpu(args[3]);
    stop = true;
    if (generator != null) generator.join();
    new Truth().within("jvmkit.test.profiler.NativeJitGc.runFor").shares(names, cpu).write(args[2]);
    long gcs = 0, gcMillis = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      gcs += Math.max(0, gc.getCollectionCount());
      gcMillis += Math.max(0, gc.getCollectionTime());
    }
    System.out.printf("phase %s: main thread CPU %.2f s; fresh classes %d (main %d, jit-gen %d); "
            + "collections %d (%d ms); JIT compilation %d ms%n",
        phase, (Truth.cpuNanos() - start) / 1e9, FreshClasses.count.get(), ownCount, generated, gcs, gcMillis,
        ManagementFactory.getCompilationMXBean().getTotalCompilationTime());
    System.out.println("sink " + sink);
  }

  /** Runs part WHICH until this thread used NANOS of CPU in it; returns the CPU time it took. */
  static long runFor(int which, long nanos) {
    long inside = 0;
    while (inside < nanos) {
      long t0 = Truth.cpuNanos();
      switch (which) {
        case 0: jitDefine(); break;
        case 1: jitCall(); break;
        case 2: jitWork(); break;
        case 3: gcShort(); break;
        case 4: gcMedium(); break;
        default: gcCompute(); break;
      }
      inside += Truth.cpuNanos() - t0;
    }
    return inside;
  }

  // --- jit ----------------------------------------------------------------------------------------

  static volatile boolean stop;
  static final List<LongUnaryOperator> pool = new ArrayList<>();
  static FreshClasses.Loader loader;
  static int ownCount, generated;

  /** A loader for every 64 classes the main thread defines. */
  static FreshClasses.Loader ownLoader() {
    if (loader == null || ownCount % 64 == 0) loader = new FreshClasses.Loader();
    ownCount++;
    return loader;
  }

  /** Defines a fresh class and runs its method a few times, interpreted. */
  static void jitDefine() {
    LongUnaryOperator f = FreshClasses.next(ownLoader());
    long x = sink;
    for (int i = 0; i < 20; i++) x = f.applyAsLong(x);
    sink += x;
    pool.add(f);
  }

  /** Calls earlier fresh classes: one interface call site that sees them all. */
  static void jitCall() {
    long x = sink;
    for (int i = 0; i < 64; i++) x = pool.get(RANDOM.nextInt(pool.size())).applyAsLong(x);
    sink += x;
  }

  static void jitWork() {
    sink += work(sink);
  }

  /** jit-gen: fresh classes, each called until C2 compiled it (Tier4 thresholds: 5,000-15,000). */
  static void generate() {
    FreshClasses.Loader own = new FreshClasses.Loader();
    long x = 1;
    while (!stop) {
      if (generated % 64 == 63) own = new FreshClasses.Loader();
      LongUnaryOperator f = FreshClasses.next(own);
      generated++;
      for (int i = 0; i < 12_000 && !stop; i++) x = f.applyAsLong(x);
    }
    synchronized (NativeJitGc.class) {
      sink += x;
    }
  }

  // --- gc -----------------------------------------------------------------------------------------

  static final Object[] shortRing = new Object[512];
  static final Object[] mediumRing = new Object[8192];  // about 20 MB of 1-4 KB arrays
  static int shortNext;

  /** Small objects that die at once (kept in a small ring, so that the JIT keeps the allocation). */
  static void gcShort() {
    for (int i = 0; i < 8192; i++) {
      shortRing[shortNext++ & (shortRing.length - 1)] = new long[2 + (i & 7)];
    }
  }

  /** 1-4 KB arrays that replace random earlier ones: they live for about 64 calls. */
  static void gcMedium() {
    for (int i = 0; i < 128; i++) {
      mediumRing[RANDOM.nextInt(mediumRing.length)] = new byte[1024 + RANDOM.nextInt(3072)];
    }
  }

  static void gcCompute() {
    sink += work(sink);
  }

  /** About 50 us of integer work that cannot be folded away. */
  static long work(long x) {
    for (int i = 0; i < 20_000; i++) {
      x = x * 6364136223846793005L + 1442695040888963407L;
      x ^= x >>> 29;
    }
    return x;
  }

  // --- the kernel's CPU time per thread --------------------------------------------------------------

  static void writeThreadCpu(String path) throws IOException {
    List<String> lines = new ArrayList<>();
    try (Stream<Path> tasks = Files.list(Paths.get("/proc/self/task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        try {
          String comm = new String(Files.readAllBytes(task.resolve("comm")), StandardCharsets.UTF_8).trim();
          long ns = Long.parseLong(new String(Files.readAllBytes(task.resolve("schedstat")),
              StandardCharsets.US_ASCII).trim().split(" ")[0]);
          lines.add("cpu " + ns + " " + comm);
        } catch (IOException | RuntimeException e) {
          // the thread ended meanwhile
        }
      }
    }
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Paths.get(path)))) {
      for (String l : lines) out.println(l);
    }
  }

  /**
   * Class files written here: "jvmkit.test.profiler.fresh.FreshN implements LongUnaryOperator", whose
   * applyAsLong(x) runs 4 to 16 rounds of 40 to 120 random long operations (multiplications and
   * additions by constants of its own, shifts, xors with x): every class a different method for the
   * JIT, one StackMapTable frame (the loop's head), version 52.
   */
  static final class FreshClasses {
    static final java.util.concurrent.atomic.AtomicInteger count = new java.util.concurrent.atomic.AtomicInteger();
    static final Random SHAPES = new Random(23);

    static final class Loader extends ClassLoader {
      Loader() {
        super(NativeJitGc.class.getClassLoader());
      }

      Class<?> define(String name, byte[] bytes) {
        return defineClass(name, bytes, 0, bytes.length);
      }
    }

    static LongUnaryOperator next(Loader loader) {
      String name = "jvmkit.test.profiler.fresh.Fresh" + count.getAndIncrement();
      try {
        Class<?> c = loader.define(name, classBytes(name.replace('.', '/'), SHAPES));
        return (LongUnaryOperator) c.getDeclaredConstructor().newInstance();
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }

    static byte[] classBytes(String internalName, Random r) {
      int ops = 40 + r.nextInt(81);
      int rounds = 4 + r.nextInt(13);
      long[] constants = new long[8];
      for (int i = 0; i < constants.length; i++) constants[i] = r.nextLong() | 1;
      ByteBuffer b = ByteBuffer.allocate(4096 + ops * 16);
      b.putInt(0xCAFEBABE).putShort((short) 0).putShort((short) 52);
      b.putShort((short) (15 + 2 * constants.length));  // constant pool count
      utf8(b, internalName);                              // 1
      b.put((byte) 7).putShort((short) 1);                // 2 this class
      utf8(b, "java/lang/Object");                        // 3
      b.put((byte) 7).putShort((short) 3);                // 4
      utf8(b, "java/util/function/LongUnaryOperator");    // 5
      b.put((byte) 7).putShort((short) 5);                // 6
      utf8(b, "<init>");                                  // 7
      utf8(b, "()V");                                     // 8
      b.put((byte) 12).putShort((short) 7).putShort((short) 8);  // 9 NameAndType
      b.put((byte) 10).putShort((short) 4).putShort((short) 9);  // 10 Object.<init>
      utf8(b, "applyAsLong");                             // 11
      utf8(b, "(J)J");                                    // 12
      utf8(b, "Code");                                    // 13
      utf8(b, "StackMapTable");                           // 14
      for (long c : constants) b.put((byte) 5).putLong(c);  // 15, 17, ...: two slots each
      b.putShort((short) 0x21).putShort((short) 2).putShort((short) 4);
      b.putShort((short) 1).putShort((short) 6);          // implements LongUnaryOperator
      b.putShort((short) 0);                              // no fields
      b.putShort((short) 2);                              // two methods
      // public <init>() { super(); }
      b.putShort((short) 1).putShort((short) 7).putShort((short) 8).putShort((short) 1);
      b.putShort((short) 13).putInt(12 + 5).putShort((short) 1).putShort((short) 1).putInt(5);
      b.put((byte) 0x2a).put((byte) 0xb7).putShort((short) 10).put((byte) 0xb1);
      b.putShort((short) 0).putShort((short) 0);
      // public long applyAsLong(long x): locals this, x (2), i, acc (2)
      ByteBuffer code = ByteBuffer.allocate(32 + ops * 8);
      code.put((byte) 0x03).put((byte) 0x3e);                  // 0: iconst_0; istore_3
      code.put((byte) 0x1f).put((byte) 0x37).put((byte) 4);    // 2: lload_1; lstore 4
      int head = code.position();                              // 5: the loop's head
      code.put((byte) 0x16).put((byte) 4);                     // lload 4
      for (int i = 0; i < ops; i++) {
        int constant = 15 + 2 * r.nextInt(constants.length);
        switch (r.nextInt(6)) {
          case 0: code.put((byte) 0x14).putShort((short) constant).put((byte) 0x69); break;  // * c
          case 1: code.put((byte) 0x14).putShort((short) constant).put((byte) 0x61); break;  // + c
          case 2:  // acc ^= acc >>> s
            code.put((byte) 0x5c).put((byte) 0x10).put((byte) (1 + r.nextInt(62))).put((byte) 0x7d).put((byte) 0x83);
            break;
          case 3: code.put((byte) 0x1f).put((byte) 0x83); break;  // ^ x
          case 4:  // acc += acc << s
            code.put((byte) 0x5c).put((byte) 0x10).put((byte) (1 + r.nextInt(62))).put((byte) 0x79).put((byte) 0x61);
            break;
          default:  // acc |= x & c
            code.put((byte) 0x1f).put((byte) 0x14).putShort((short) constant).put((byte) 0x7f).put((byte) 0x81);
            break;
        }
      }
      code.put((byte) 0x37).put((byte) 4);                     // lstore 4
      code.put((byte) 0x84).put((byte) 3).put((byte) 1);       // iinc 3 1
      code.put((byte) 0x1d).put((byte) 0x10).put((byte) rounds);  // iload_3; bipush rounds
      int branch = code.position();
      code.put((byte) 0xa1).putShort((short) (head - branch)); // if_icmplt head
      code.put((byte) 0x16).put((byte) 4).put((byte) 0xad);    // lload 4; lreturn
      int codeLength = code.position();
      byte[] stackMap = {(byte) 253, 0, (byte) head, 1, 4};    // append_frame at head: int, long
      b.putShort((short) 1).putShort((short) 11).putShort((short) 12).putShort((short) 1);
      b.putShort((short) 13).putInt(12 + codeLength + 6 + 2 + stackMap.length);
      b.putShort((short) 6).putShort((short) 6).putInt(codeLength);
      b.put(code.array(), 0, codeLength);
      b.putShort((short) 0);                                   // no exception table
      b.putShort((short) 1);                                   // one attribute: StackMapTable
      b.putShort((short) 14).putInt(2 + stackMap.length).putShort((short) 1).put(stackMap);
      b.putShort((short) 0);                                   // no class attributes
      byte[] bytes = new byte[b.position()];
      b.flip();
      b.get(bytes);
      return bytes;
    }

    static void utf8(ByteBuffer b, String s) {
      byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
      b.put((byte) 1).putShort((short) bytes.length).put(bytes);
    }
  }
}
