package jvmkit.test.walk;

/**
 * Loops whose samples mostly land in code AsyncGetCallTrace cannot place on its own: intrinsic
 * stubs (Math.log, Math.sin), arraycopy stubs, String hashing, and megamorphic interface and
 * virtual calls (itable and vtable stubs). One thread per workload, named "worker-WORKLOAD"; each runs its class's
 * hotLoop(), which the test keeps out of line (-XX:CompileCommand=dontinline,*::hotLoop) so that
 * every correct trace of a worker contains a hotLoop frame.
 *
 * <p>Usage: StubsMain seconds|sampled:max_seconds [workload...] (default: all of log sin arraycopy
 * hash iface vcall; the run's length: see RunLength)
 */
public final class StubsMain {
  static volatile long sink;

  interface Shape {
    long area(long x);
  }

  static final class A implements Shape {
    public long area(long x) {
      return x + 1;
    }
  }

  static final class B implements Shape {
    public long area(long x) {
      return x * 3;
    }
  }

  static final class C implements Shape {
    public long area(long x) {
      return x ^ 0x55;
    }
  }

  static final class D implements Shape {
    public long area(long x) {
      return x - 7;
    }
  }

  static final class E implements Shape {
    public long area(long x) {
      return x >>> 1;
    }
  }

  abstract static class Animal {
    abstract long sound(long x);
  }

  static final class Cat extends Animal {
    long sound(long x) {
      return x + 3;
    }
  }

  static final class Dog extends Animal {
    long sound(long x) {
      return x * 5;
    }
  }

  static final class Cow extends Animal {
    long sound(long x) {
      return x ^ 0x33;
    }
  }

  static final class Owl extends Animal {
    long sound(long x) {
      return x - 11;
    }
  }

  static final class Bat extends Animal {
    long sound(long x) {
      return x >>> 2;
    }
  }

  static final class Log {
    static double hotLoop(int n) {
      double s = 0;
      for (int i = 1; i <= n; i++) {
        s += Math.log(i + 0.5);
      }
      return s;
    }
  }

  static final class Sin {
    static double hotLoop(int n) {
      double s = 0;
      for (int i = 1; i <= n; i++) {
        s += Math.sin(i * 0.001);
      }
      return s;
    }
  }

  static final class ArrayCopy {
    static final int[] SRC = new int[4096];
    static final int[] DST = new int[4096];
    static final Object[] OSRC = new Object[1024];
    static final Object[] ODST = new Object[1024];

    static long hotLoop(int n) {
      long s = 0;
      for (int i = 0; i < n; i++) {
        int len = 512 + (i & 2047);
        System.arraycopy(SRC, i & 1023, DST, 0, len);
        System.arraycopy(OSRC, 0, ODST, i & 511, 256);
        s += DST[i & 511];
      }
      return s;
    }
  }

  static final class Hash {
    static final byte[] TEXT = new byte[1024];

    // Arrays.hashCode(byte[]) and String.hashCode share one intrinsic (a stub on JDK 21+). A new
    // String (hashCode computed, not cached) only every 64th time: allocation-heavy loops spend
    // their samples in the VM's allocation slow path and in GC pauses instead (see
    // docs/stack_walk.md "Recovery", what is not recovered).
    static long hotLoop(int n) {
      long s = 0;
      for (int i = 0; i < n; i++) {
        TEXT[i & 1023] = (byte) ('a' + (i % 26));
        s += java.util.Arrays.hashCode(TEXT);
        if ((i & 63) == 0) {
          s += new String(TEXT, 0, 512 + (i & 511), java.nio.charset.StandardCharsets.ISO_8859_1).hashCode();
        }
      }
      return s;
    }
  }

  static final class Iface {
    static final Shape[] SHAPES = {new A(), new B(), new C(), new D(), new E()};

    static long hotLoop(int n) {
      long s = 0;
      Shape[] shapes = SHAPES;
      for (int i = 0; i < n; i++) {
        s += shapes[i % shapes.length].area(i);
      }
      return s;
    }
  }

  /** Megamorphic virtual calls: five receivers at one call site, dispatched by vtable stubs. */
  static final class Virtual {
    static final Animal[] ANIMALS = {new Cat(), new Dog(), new Cow(), new Owl(), new Bat()};

    static long hotLoop(int n) {
      long s = 0;
      Animal[] animals = ANIMALS;
      for (int i = 0; i < n; i++) {
        s += animals[i % animals.length].sound(i);
      }
      return s;
    }
  }

  static void run(String workload, RunLength length) {
    // The dispatch is resolved once: time spent here between hotLoop calls is tiny (< 0.5% of
    // samples, each hotLoop call runs for a few milliseconds).
    int kind = java.util.List.of("log", "sin", "arraycopy", "hash", "iface", "vcall").indexOf(workload);
    if (kind < 0) {
      throw new IllegalArgumentException("unknown workload " + workload);
    }
    long s = 0;
    while (length.running()) {
      switch (kind) {
        case 0 -> s += (long) Log.hotLoop(200_000);
        case 1 -> s += (long) Sin.hotLoop(200_000);
        case 2 -> s += ArrayCopy.hotLoop(20_000);
        case 3 -> s += Hash.hotLoop(40_000);
        case 4 -> s += Iface.hotLoop(800_000);
        default -> s += Virtual.hotLoop(800_000);
      }
    }
    sink += s;
  }

  public static void main(String[] args) throws Exception {
    RunLength length = new RunLength(args.length > 0 ? args[0] : "5");
    String[] workloads =
        args.length > 1
            ? java.util.Arrays.copyOfRange(args, 1, args.length)
            : new String[] {"log", "sin", "arraycopy", "hash", "iface", "vcall"};
    // Load and initialise every workload class here, so that no worker's samples land in class
    // loading (its traces would rightly lack hotLoop).
    sink += (long) Log.hotLoop(1) + (long) Sin.hotLoop(1) + ArrayCopy.hotLoop(1) + Hash.hotLoop(1) + Iface.hotLoop(1)
        + Virtual.hotLoop(1);
    Thread[] threads = new Thread[workloads.length];
    for (int i = 0; i < workloads.length; i++) {
      String w = workloads[i];
      threads[i] = new Thread(() -> run(w, length), "worker-" + w);
      threads[i].start();
    }
    length.await();
    for (Thread t : threads) {
      t.join();
    }
  }
}
