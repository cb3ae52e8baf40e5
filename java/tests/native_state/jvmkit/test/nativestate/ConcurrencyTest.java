package jvmkit.test.nativestate;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Threads doing mixed set/get/remove on overlapping objects (run also with
 * -XX:hashCode=2, so that they all collide, and with -Xcheck:jni). Objects are replaced while others
 * use them, so that entries of dead objects are swept (their weak references deleted) while readers
 * probe past them. No thread may ever read another object's state.
 */
public final class ConcurrencyTest {
  public static void main(String[] args) throws Exception {
    int threads = Integer.parseInt(args[0]);
    long millis = Long.parseLong(args[1]);
    int objects = 256;
    long t = Native.init(Peer.class, 1);
    AtomicReferenceArray<Peer> pool = new AtomicReferenceArray<>(objects);
    for (int i = 0; i < objects; i++) {
      pool.set(i, new Peer());
    }
    AtomicLong wrong = new AtomicLong();
    AtomicLong hits = new AtomicLong();
    AtomicLong ops = new AtomicLong();
    long deadline = System.nanoTime() + millis * 1_000_000;
    CountDownLatch start = new CountDownLatch(1);
    Thread[] workers = new Thread[threads];
    for (int w = 0; w < threads; w++) {
      final boolean sweeper = w == 0;
      workers[w] = new Thread(() -> {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        long n = 0;
        while (System.nanoTime() < deadline) {
          for (int k = 0; k < 256; k++, n++) {
            int i = rnd.nextInt(objects);
            Peer p = pool.get(i);
            int op = rnd.nextInt(16);
            if (op < 3) {
              if (Native.set(t, p, p.state()) != 0) {
                wrong.incrementAndGet();
              }
            } else if (op < 5) {
              long s = Native.remove(t, p);
              if (s != 0 && s != p.state()) {
                wrong.incrementAndGet();
              }
            } else if (op == 5 && sweeper) {
              pool.set(i, new Peer());  // the old object dies with (maybe) a state set
            } else {
              long s = Native.get(t, p);
              if (s != 0) {
                hits.incrementAndGet();
                if (s != p.state()) {
                  wrong.incrementAndGet();
                }
              }
            }
          }
          if (sweeper) {
            Native.sweep(t);
          }
        }
        ops.addAndGet(n);
      });
      workers[w].start();
    }
    // Garbage for the collector, so that replaced objects die (and weak refs clear) during the run.
    Thread gc = new Thread(() -> {
      while (System.nanoTime() < deadline) {
        System.gc();
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    gc.start();
    start.countDown();
    for (Thread w : workers) {
      w.join();
    }
    gc.join();
    Check.equal(0, wrong.get(), "a thread read another object's state");
    Check.that(hits.get() > 0, "gets found states (" + hits.get() + ")");
    long handedBefore = Native.handedCount();
    System.gc();
    int swept = Native.sweep(t);
    Check.equal(handedBefore + swept, Native.handedCount(), "sweep hands every dead state over");
    for (int i = 0; i < objects; i++) {
      Native.remove(t, pool.get(i));
    }
    for (int i = 0; i < 50 && Native.size(t) > 0; i++) {
      System.gc();
      Native.sweep(t);
      Thread.sleep(10);
    }
    Check.equal(0, Native.size(t), "every entry removed or swept");
    Native.free(t);
    Check.pass("ConcurrencyTest threads=" + threads + " ops=" + ops.get() + " hits=" + hits.get());
  }
}
