/* The JNI library of jvmkit.test.walk.LateMain, loaded (System.load) while a sampler runs, after
 * jvmkit prepared every object loaded at start-up: nothing else loads it. LateMain.spin runs
 * late_spin, a static function (named from .symtab), for the given wall time. It reads the clock
 * every 64 steps, so that about a fifth of the samples lie in what the library calls (libc's
 * clock_gettime and the vDSO) and must be unwound into it: also those taken before the library was
 * prepared. */
#include <jni.h>
#include <time.h>

static volatile unsigned sink;

/* System.nanoTime() just after System.load returned, as LateMain passed it: the moment the test
 * agent measures its delays from (read with dlsym). 0 until LateMain.spin runs. */
JNIEXPORT volatile jlong late_load_returned_ns;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static __attribute__((noipa)) unsigned late_spin(long long until) {
  unsigned x = 1;
  do {
    for (int i = 0; i < 64; i++) x = x * 1103515245u + 12345u;
    sink = x;
  } while (now_ns() < until);
  return x;
}

JNIEXPORT void JNICALL Java_jvmkit_test_walk_LateMain_spin(JNIEnv* env, jclass cls, jlong loaded_ns, jlong nanos) {
  (void)env;
  (void)cls;
  late_load_returned_ns = loaded_ns;
  sink += late_spin(now_ns() + nanos); /* work after the call: no tail call */
}
