/* The JNI library of jvmkit.test.walk.UpcallMain: C between Java frames, with known shares of time.
 *
 *   UpcallMain.a -> native n1 (Java_jvmkit_test_walk_UpcallMain_n1) -> static mid
 *     -> CallStaticVoidMethod -> UpcallMain.b -> native n2 (Java_jvmkit_test_walk_UpcallMain_n2)
 *     -> static leaf
 *
 * leaf works for the wall time it is given, in one of three ways (the phase):
 *   SPIN    in leaf's own loop
 *   QSORT   inside libc's qsort, whose comparator (burn_compare) burns about 100 ns per call
 *   MEMCPY  inside libc's memcpy, copying 1 MiB buffers
 * and adds the wall time it spent in each phase to phase_nanos. That sum is the truth a sampler's
 * shares are compared with: the calls between the clock readings are the phase's work, so a sample
 * taken in leaf during a phase lies in leaf's loop, in qsort (or its comparator) or in memcpy, but
 * for the clock readings themselves (under 1 % of the time).
 *
 * Built with frame pointers and without (UPCALL_NOFP, where leaf's loop also uses rbp as a general
 * register, so that only the call-frame information tells the way). The static functions are
 * noipa: never inlined, and never cloned under another name (mid.isra.0), so that each keeps its
 * symbol; each does work after its calls, so that no call becomes a tail call and every frame of
 * the chain stays on the stack. */
#include <jni.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOIPA __attribute__((noipa))

enum { SPIN = 0, QSORT = 1, MEMCPY = 2, PHASES = 3 };

static volatile unsigned sink;
static long long phase_nanos[PHASES];
static jmethodID method_b;

enum { SORTED = 64, COPY_BYTES = 1 << 20 };
static char copy_from[COPY_BYTES], copy_to[COPY_BYTES];

static inline long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* A consistent order (by value) that costs about 100 ns per comparison. */
static NOIPA int burn_compare(const void* left, const void* right) {
  const int l = *(const int*)left, r = *(const int*)right;
  unsigned x = (unsigned)l;
  for (int i = 0; i < 48; i++) x = x * 1103515245u + 12345u;
  sink = x;
  return l < r ? -1 : l > r;
}

/* The loop of the SPIN phase, in leaf itself: the clock is read every 4,096 steps. */
static inline __attribute__((always_inline)) unsigned spin_until(long long until) {
  unsigned x = 1;
#ifdef UPCALL_NOFP
  __asm__ volatile("xor %%ebp, %%ebp" ::: "rbp");
#endif
  do {
    for (int i = 0; i < 4096; i++) {
      x = x * 1103515245u + 12345u;
#ifdef UPCALL_NOFP
      __asm__ volatile("add $3, %%rbp" ::: "rbp");
#endif
    }
    sink = x;
  } while (now_ns() < until);
  return x;
}

static NOIPA void leaf(jint phase, jlong nanos) {
  const long long start = now_ns(), until = start + nanos;
  int values[SORTED];
  unsigned x = 0;
  switch (phase) {
    case SPIN:
      x = spin_until(until);
      break;
    case QSORT:
      do {
        for (int i = 0; i < SORTED; i++) values[i] = (i * 37 + (int)x) % SORTED;
        qsort(values, SORTED, sizeof(values[0]), burn_compare);
        x += (unsigned)values[x % SORTED];
      } while (now_ns() < until);
      break;
    case MEMCPY:
      do {
        memcpy(copy_to, copy_from, COPY_BYTES);
        x += (unsigned char)copy_to[x % COPY_BYTES] + 1;
      } while (now_ns() < until);
      break;
    default:
      return;
  }
  sink += x;
  phase_nanos[phase] += now_ns() - start;
}

static NOIPA void mid(JNIEnv* env, jclass cls, jint phase, jlong nanos) {
  (*env)->CallStaticVoidMethod(env, cls, method_b, phase, nanos);
  sink += (*env)->ExceptionCheck(env) == JNI_TRUE;
}

JNIEXPORT void JNICALL Java_jvmkit_test_walk_UpcallMain_n1(JNIEnv* env, jclass cls, jint phase, jlong nanos) {
  if (method_b == NULL) method_b = (*env)->GetStaticMethodID(env, cls, "b", "(IJ)V");
  if (method_b == NULL) return; /* NoSuchMethodError is pending */
  mid(env, cls, phase, nanos);
  sink += 1;
}

JNIEXPORT void JNICALL Java_jvmkit_test_walk_UpcallMain_n2(JNIEnv* env, jclass cls, jint phase, jlong nanos) {
  (void)env;
  (void)cls;
  leaf(phase, nanos);
  sink += 2;
}

/* The wall time leaf spent in PHASE so far, in ns; -1 for no such phase. Also read by the test
 * agent (dlsym) as the truth of the shares. */
JNIEXPORT jlong upcall_phase_nanos(jint phase) { return phase >= 0 && phase < PHASES ? phase_nanos[phase] : -1; }

JNIEXPORT jlong JNICALL Java_jvmkit_test_walk_UpcallMain_phaseNanos(JNIEnv* env, jclass cls, jint phase) {
  (void)env;
  (void)cls;
  return upcall_phase_nanos(phase);
}
