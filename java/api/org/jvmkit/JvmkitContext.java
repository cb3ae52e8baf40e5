package org.jvmkit;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Request-context labels for jvmkit's profiler: "whose time is this".
 *
 * <p>Code that serves a request says so with a scope; every sample the profiler takes on this
 * thread while the scope is open carries its labels, in every output (collapsed, HTML, pprof,
 * JFR; see docs/profiler/context_labels.md, "Context labels"):
 *
 * <pre>{@code
 * try (var scope = JvmkitContext.with("endpoint", "/checkout")) {
 *   ...
 * }
 * }</pre>
 *
 * Scopes nest: an inner scope adds its labels to those of the scopes around it (a key given again
 * takes the new value), and closing it restores what the thread had before. {@link #withSpan}
 * ties samples to an OpenTelemetry span: its trace and span ids go into JFR recordings, as the
 * fields {@code traceId} and {@code spanId} of the {@code jvmkit.SampleContext} event that follows
 * each sample taken in the span (the aggregated outputs would hold one copy of the tree per
 * request).
 *
 * <p>Cost. Without jvmkit's agent every call is a read of one static field and a return, with
 * no allocation. With the agent, entering and leaving a scope is a thread-local read, a lookup in
 * a small per-thread cache, and a few plain stores into native memory that the profiler's signal
 * handler reads; the JVM's native interface is only called the first time a thread uses a scope,
 * and the first time the process sees a label or a combination of labels.
 *
 * <p>Activation. The agent library defines this class's natives. When it is loaded before this
 * class is initialized, {@code agentLoaded0} resolves and the class starts active. When the agent
 * is attached to a running JVM later, it finds this class with JVMTI and sets {@code active}
 * itself. Scopes opened before that do nothing.
 *
 * <p>Threads. A thread's labels are its own. On JDK 24 and later a virtual thread's labels follow
 * it from carrier to carrier. On JDK 21 to 23 the JVM does not tell the profiler which virtual
 * thread a carrier runs, so scopes on virtual threads record nothing there.
 *
 * <p>Misuse. A scope closed on another thread than the one that opened it, or closed twice, does
 * nothing. Null keys or values are refused with a NullPointerException while the agent is loaded.
 */
public final class JvmkitContext {
  /** Whether the agent is loaded: set at initialization, or by the agent when it attaches. */
  private static volatile boolean active = agentPresent();

  private JvmkitContext() {}

  /** Whether jvmkit's agent is loaded, so that scopes are recorded. */
  public static boolean isActive() {
    return active;
  }

  /** Opens a scope that adds the label {@code key=value} to the thread's labels. */
  public static Scope with(String key, String value) {
    if (!active) {
      return Scope.NONE;
    }
    ThreadState state = ThreadState.current();
    return state.open(state.child(state.set, key, value), state.traceHigh, state.traceLow, state.span);
  }

  /** Opens a scope that adds two labels at once. */
  public static Scope with(String key1, String value1, String key2, String value2) {
    if (!active) {
      return Scope.NONE;
    }
    ThreadState state = ThreadState.current();
    int set = state.child(state.child(state.set, key1, value1), key2, value2);
    return state.open(set, state.traceHigh, state.traceLow, state.span);
  }

  /**
   * Opens a scope of an OpenTelemetry span: the ids as {@code SpanContext.getTraceId()} and
   * {@code getSpanId()} give them, 32 and 16 hex digits. Ids that are not such hex numbers count
   * as all zero, OpenTelemetry's invalid span: samples then carry no span.
   */
  public static Scope withSpan(String traceIdHex, String spanIdHex) {
    if (!active) {
      return Scope.NONE;
    }
    ThreadState state = ThreadState.current();
    // OpenTelemetry hands out the same id strings for a span: parse them once per thread.
    if (traceIdHex == state.lastTraceHex && spanIdHex == state.lastSpanHex && traceIdHex != null) {
      return state.open(state.set, state.lastHigh, state.lastLow, state.lastSpan);
    }
    long high = 0;
    long low = 0;
    long span = 0;
    if (traceIdHex != null && spanIdHex != null && traceIdHex.length() == 32 && spanIdHex.length() == 16) {
      high = hex(traceIdHex, 0);
      low = hex(traceIdHex, 16);
      span = hex(spanIdHex, 0);
      if (high == -1 && !allF(traceIdHex, 0) || low == -1 && !allF(traceIdHex, 16) || span == -1 && !allF(spanIdHex, 0)) {
        high = low = span = 0;
      }
    }
    state.lastTraceHex = traceIdHex;
    state.lastSpanHex = spanIdHex;
    state.lastHigh = high;
    state.lastLow = low;
    state.lastSpan = span;
    return state.open(state.set, high, low, span);
  }

  /** Opens a scope of an OpenTelemetry span given as numbers: the trace id's two halves, the span id. */
  public static Scope withSpan(long traceIdHigh, long traceIdLow, long spanId) {
    if (!active) {
      return Scope.NONE;
    }
    ThreadState state = ThreadState.current();
    return state.open(state.set, traceIdHigh, traceIdLow, spanId);
  }

  /** An open scope; closing it gives the thread back the labels and span it had before. */
  public static final class Scope implements AutoCloseable {
    static final Scope NONE = new Scope(null, 0, 0, 0, 0);

    private final ThreadState state;
    private final int set;
    private final long traceHigh;
    private final long traceLow;
    private final long span;
    private boolean closed;

    Scope(ThreadState state, int set, long traceHigh, long traceLow, long span) {
      this.state = state;
      this.set = set;
      this.traceHigh = traceHigh;
      this.traceLow = traceLow;
      this.span = span;
    }

    @Override
    public void close() {
      if (state == null || closed || state.owner != Thread.currentThread()) {
        return;
      }
      closed = true;
      state.publish(set, traceHigh, traceLow, span);
    }
  }

  // 16 hex digits of S from AT as a long; -1 (also the value of "ffffffffffffffff") on a bad digit.
  private static long hex(String s, int at) {
    long v = 0;
    for (int i = at; i < at + 16; i++) {
      int d = Character.digit(s.charAt(i), 16);
      if (d < 0) {
        return -1;
      }
      v = v << 4 | d;
    }
    return v;
  }

  private static boolean allF(String s, int at) {
    for (int i = at; i < at + 16; i++) {
      if (Character.toLowerCase(s.charAt(i)) != 'f') {
        return false;
      }
    }
    return true;
  }

  /** A thread's labels and span, and the native cell the profiler reads them from. */
  static final class ThreadState {
    // The cell's layout (src/profiler/context/context_slots.hpp, ContextCell): a version at 0 whose low
    // bit names the copy in use, copy c at 8 + 32 c (label set, trace high, trace low, span), the
    // slot's token at 72.
    private static final int CACHE = 64;
    private static final ThreadLocal<ThreadState> STATES = ThreadLocal.withInitial(ThreadState::new);

    final Thread owner = Thread.currentThread();
    private final ByteBuffer cell = attachCell(owner);
    int set;
    long traceHigh;
    long traceLow;
    long span;
    private long version;
    // The last span ids withSpan parsed, by identity.
    String lastTraceHex;
    String lastSpanHex;
    long lastHigh;
    long lastLow;
    long lastSpan;
    // (parent set, key, value) -> child set, direct-mapped.
    private final int[] cacheParent = new int[CACHE];
    private final String[] cacheKey = new String[CACHE];
    private final String[] cacheValue = new String[CACHE];
    private final int[] cacheChild = new int[CACHE];

    static ThreadState current() {
      return STATES.get();
    }

    Scope open(int newSet, long newTraceHigh, long newTraceLow, long newSpan) {
      Scope scope = new Scope(this, set, traceHigh, traceLow, span);
      publish(newSet, newTraceHigh, newTraceLow, newSpan);
      return scope;
    }

    // Writes the copy not in use, then flips the version after a release fence. The handler that
    // reads the cell runs on this thread, so it sees either copy whole. The first fence keeps these
    // stores after the previous flip (on x86 both only stop the compiler reordering stores).
    void publish(int newSet, long newTraceHigh, long newTraceLow, long newSpan) {
      set = newSet;
      traceHigh = newTraceHigh;
      traceLow = newTraceLow;
      span = newSpan;
      ByteBuffer c = cell;
      if (c == null) {
        return;
      }
      long next = version + 1;
      int base = 8 + 32 * (int) (next & 1);
      VarHandle.storeStoreFence();
      c.putLong(base, newSet);
      c.putLong(base + 8, newTraceHigh);
      c.putLong(base + 16, newTraceLow);
      c.putLong(base + 24, newSpan);
      VarHandle.releaseFence();
      c.putLong(0, next);
      version = next;
    }

    int child(int parent, String key, String value) {
      int h = (key.hashCode() * 31 + value.hashCode() + parent * 0x9E3779B9) >>> (32 - 6);
      String k = cacheKey[h];
      String v = cacheValue[h];
      if (cacheParent[h] == parent && k != null && (k == key || k.equals(key)) && (v == value || v.equals(value))) {
        return cacheChild[h];
      }
      int child = Interned.child(parent, key, value);
      cacheParent[h] = parent;
      cacheKey[h] = key;
      cacheValue[h] = value;
      cacheChild[h] = child;
      return child;
    }

    private static ByteBuffer attachCell(Thread thread) {
      ByteBuffer c;
      try {
        c = attach0(Interned.isVirtual(thread));
      } catch (UnsatisfiedLinkError e) {
        return null;
      }
      if (c != null) {
        c.order(ByteOrder.nativeOrder());
        long token = c.getLong(72);
        Interned.CLEANER.register(Thread.currentThread(), new Release(token));
      }
      return c;
    }
  }

  /** Frees a thread's slot once the thread is gone. */
  private static final class Release implements Runnable {
    private final long token;

    Release(long token) {
      this.token = token;
    }

    @Override
    public void run() {
      release0(token);
    }
  }

  /** The process-wide ids of labels and label sets, each asked of the agent once. */
  static final class Interned {
    static final Cleaner CLEANER = Cleaner.create();
    private static final ConcurrentHashMap<String, ConcurrentHashMap<String, Integer>> LABELS = new ConcurrentHashMap<>();
    private static final ConcurrentHashMap<Long, Integer> SETS = new ConcurrentHashMap<>();
    private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

    // The set PARENT plus key=value; PARENT itself when the agent's tables are full.
    static int child(int parent, String key, String value) {
      if (key == null || value == null) {
        throw new NullPointerException("JvmkitContext: null label key or value");
      }
      ConcurrentHashMap<String, Integer> values = LABELS.computeIfAbsent(key, k -> new ConcurrentHashMap<>());
      Integer label = values.get(value);
      if (label == null) {
        int id = label0(key, value);
        if (id == 0) {
          return parent;
        }
        values.putIfAbsent(value, id);
        label = id;
      }
      Long pair = (long) parent << 32 | (label & 0xffffffffL);
      Integer set = SETS.get(pair);
      if (set == null) {
        int id = set0(parent, label);
        if (id == 0) {
          return parent;
        }
        SETS.putIfAbsent(pair, id);
        set = id;
      }
      return set;
    }

    static boolean isVirtual(Thread thread) {
      if (IS_VIRTUAL == null) {
        return false;
      }
      try {
        return (boolean) IS_VIRTUAL.invokeExact(thread);
      } catch (Throwable e) {
        return false;
      }
    }

    // Thread.isVirtual (JDK 21), looked up so that the class compiles for and runs on JDK 17.
    private static MethodHandle isVirtualHandle() {
      try {
        return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
      } catch (NoSuchMethodException | IllegalAccessException e) {
        return null;
      }
    }
  }

  private static boolean agentPresent() {
    try {
      return agentLoaded0();
    } catch (UnsatisfiedLinkError e) {
      return false;
    }
  }

  // The agent's natives (src/profiler/context/context_agent.cpp). None throws: refusals are 0 or null.
  private static native boolean agentLoaded0();

  private static native ByteBuffer attach0(boolean virtualThread);

  private static native void release0(long token);

  private static native int label0(String key, String value);

  private static native int set0(int parent, int label);
}
