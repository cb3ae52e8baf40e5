package jvmkit.test.nativestate;

/** The native side of the tests (tests/native_state/test_jni.cpp): the C API, states as longs. */
final class Native {
  static {
    System.loadLibrary("native_state_test_jni");
  }

  private Native() {}

  /** init_state_table (size -1) or init_state_table_with_size; 0 on failure. */
  static native long init(Class<?> clazz, int size);

  static native int set(long table, Object obj, long state);

  static native long get(long table, Object obj);

  static native long remove(long table, Object obj);

  static native void setOid(long table, Object lock, int id, long state);

  static native long getOid(long table, Object lock, int id);

  static native long removeOid(long table, Object lock, int id);

  /** sweep_state_table with a callback that counts (handedCount) and sums (handedSum) states. */
  static native int sweep(long table);

  static native int sweepNullCallback(long table);

  /** free_state_table with the counting callback. */
  static native void free(long table);

  static native int size(long table);

  static native long handedCount();

  static native long handedSum();

  static native void callAllWithPending(long table, Class<?> clazz, Object obj, Throwable pending);

  static native int pendingFailures();

  /** What the last wrapper returned (Java does not see it when the call throws). */
  static native long lastResult();
}
