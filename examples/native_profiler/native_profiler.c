/* native_profiler: a minimal CPU profiler with native frames, built on jvmkit's native-frames
 * extension of the Unbiased Stack-Walk API (jvmkit/stack_walk_native.h). SIGPROF (setitimer)
 * interrupts the threads that use CPU, the JVM's own compiler and GC threads included; the handler
 * asks for the interrupted thread's trace with its native frames; at VM death the hottest leaf
 * frames are printed: C/C++ functions with their library, JVM functions, or Java methods, and why
 * native parts ended short (marker frames).
 *
 * The opt-in is two calls: JvmkitSetNativeFrames(JVMKIT_NATIVE_ON | JVMKIT_NATIVE_WAIT) before
 * EnableRequestStackTrace, and JvmkitRequestStackTraceNative instead of RequestStackTrace, whose
 * extra argument carries the callback for native frames. Everything else is the JEP's API.
 *
 * Built against an installed jvmkit and linked with libjvmkit_walk.so (pkg-config jvmkit-walk):
 *   java -agentpath:/path/to/libnative_profiler.so[=interval_us=N,top=N] ...
 */
#define _GNU_SOURCE
#include <jvmkit/stack_walk_native.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static jvmtiEnv* jvmti;
static long interval_us = 1000;
static int top_count = 10;
static volatile int enabled;

/* Counted in the signal handler (atomics), and in the callbacks (one delivery thread). */
static long signals, accepted, refused;
static long traces, failures, native_only_traces;
static long markers[JVMKIT_NATIVE_END_REASON_COUNT];

/* The leaf of each trace, by name: "deflate (libz.so.1)", "Java: Ljava/util/zip/Deflater;.deflateBytesBytes". */
#define MAX_LEAVES 4096
struct leaf_samples {
  char name[160];
  long samples;
};
static struct leaf_samples leaves[MAX_LEAVES];
static int leaf_count;
static int frames_in_trace;
static int java_frames_in_trace;

static void count_leaf(const char* name) {
  for (int i = 0; i < leaf_count; i++) {
    if (strcmp(leaves[i].name, name) == 0) {
      leaves[i].samples++;
      return;
    }
  }
  if (leaf_count < MAX_LEAVES) {
    snprintf(leaves[leaf_count].name, sizeof(leaves[leaf_count].name), "%s", name);
    leaves[leaf_count++].samples = 1;
  }
}

static const char* base_name(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash != NULL ? slash + 1 : path;
}

/* ---- Callbacks ---- */

static void JNICALL on_begin(jthread thread, jboolean biased, void* user_data) {
  (void)thread;
  (void)biased;
  (void)user_data;
  traces++;
  frames_in_trace = 0;
  java_frames_in_trace = 0;
}

static jint JNICALL on_native_frame(const jvmkitNativeFrame* frame, void* user_data) {
  (void)user_data;
  char name[160];
  if (frame->kind == JVMKIT_FRAME_MARKER) {
    markers[frame->end]++;
    return JVMKIT_FRAME_CONTINUE;
  }
  if (frames_in_trace++ > 0) return JVMKIT_FRAME_CONTINUE; /* only the leaf is counted */
  if (frame->symbol != NULL) {
    snprintf(name, sizeof(name), "%.110s (%s)", frame->symbol, base_name(frame->library));
  } else if (frame->library != NULL) {
    snprintf(name, sizeof(name), "%s+0x%llx", base_name(frame->library), (unsigned long long)frame->library_offset);
  } else {
    snprintf(name, sizeof(name), "0x%llx", (unsigned long long)frame->pc);
  }
  count_leaf(name);
  return JVMKIT_FRAME_CONTINUE;
}

static jint JNICALL on_frame(jvmtiFrameType type, jmethodID method, jlocation location, void* user_data) {
  (void)type;
  (void)location;
  (void)user_data;
  java_frames_in_trace++;
  if (frames_in_trace++ > 0) return JVMKIT_FRAME_STOP; /* the rest of the trace is not needed */
  char* class_signature = NULL;
  char* method_name = NULL;
  jclass holder = NULL;
  char name[160] = "Java: ?";
  /* A jmethodID is valid until endStackTrace returns: named here, while its class is pinned. */
  if ((*jvmti)->GetMethodDeclaringClass(jvmti, method, &holder) == JVMTI_ERROR_NONE &&
      (*jvmti)->GetClassSignature(jvmti, holder, &class_signature, NULL) == JVMTI_ERROR_NONE &&
      (*jvmti)->GetMethodName(jvmti, method, &method_name, NULL, NULL) == JVMTI_ERROR_NONE) {
    snprintf(name, sizeof(name), "Java: %.100s.%.40s", class_signature, method_name);
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char*)class_signature);
  (*jvmti)->Deallocate(jvmti, (unsigned char*)method_name);
  count_leaf(name);
  return JVMKIT_FRAME_CONTINUE;
}

static void JNICALL on_end(jthread thread, void* user_data) {
  (void)thread;
  (void)user_data;
  if (java_frames_in_trace == 0) native_only_traces++; /* e.g. a compiler or GC thread */
}

static void JNICALL on_failure(jthread thread, void* user_data) {
  (void)thread;
  (void)user_data;
  failures++;
}

/* ---- Sampling ---- */

static void on_sigprof(int signo, siginfo_t* info, void* ucontext) {
  (void)signo;
  (void)info;
  if (!enabled) return;
  jvmtiStackTraceCallbacks callbacks = {on_begin, on_end, on_frame, on_failure};
  jvmkitNativeRequest native;
  memset(&native, 0, sizeof(native));
  native.size = (jint)sizeof(native);
  native.nativeFrame = on_native_frame;
  __atomic_add_fetch(&signals, 1, __ATOMIC_RELAXED);
  if (JvmkitRequestStackTraceNative(jvmti, NULL, ucontext, callbacks, &native, NULL) == JVMTI_ERROR_NONE) {
    __atomic_add_fetch(&accepted, 1, __ATOMIC_RELAXED);
  } else {
    __atomic_add_fetch(&refused, 1, __ATOMIC_RELAXED); /* a thread the JVM does not know */
  }
}

static void set_timer(long microseconds) {
  struct itimerval timer;
  timer.it_interval.tv_sec = microseconds / 1000000;
  timer.it_interval.tv_usec = microseconds % 1000000;
  timer.it_value = timer.it_interval;
  setitimer(ITIMER_PROF, &timer, NULL);
}

static void JNICALL on_vm_init(jvmtiEnv* env, JNIEnv* jni, jthread thread) {
  (void)env;
  (void)jni;
  (void)thread;
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_sigaction = on_sigprof;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGPROF, &action, NULL);
  set_timer(interval_us);
}

static int by_samples(const void* a, const void* b) {
  long x = ((const struct leaf_samples*)a)->samples, y = ((const struct leaf_samples*)b)->samples;
  return (y > x) - (y < x);
}

static void JNICALL on_vm_death(jvmtiEnv* env, JNIEnv* jni) {
  (void)env;
  (void)jni;
  set_timer(0);
  enabled = 0;
  jvmtiError err = DisableRequestStackTrace(jvmti); /* every accepted request has had its outcome */
  printf("native_profiler: DisableRequestStackTrace: JVMTI error %d\n", (int)err);
  printf("native_profiler: signals %ld accepted %ld refused %ld traces %ld (native only %ld) failures %ld\n", signals,
         accepted, refused, traces, native_only_traces, failures);
  for (int i = 0; i < JVMKIT_NATIVE_END_REASON_COUNT; i++) {
    if (markers[i] > 0) printf("native_profiler: native parts ended by %s: %ld\n", JvmkitNativeEndName(i), markers[i]);
  }
  qsort(leaves, (size_t)leaf_count, sizeof(leaves[0]), by_samples);
  for (int i = 0; i < leaf_count && i < top_count; i++) {
    printf("native_profiler: %8ld %5.1f%%  %s\n", leaves[i].samples, 100.0 * (double)leaves[i].samples / (double)traces,
           leaves[i].name);
  }
  fflush(stdout);
}

static int parse_options(const char* options) {
  char copy[256];
  snprintf(copy, sizeof(copy), "%s", options ? options : "");
  for (char* option = strtok(copy, ","); option != NULL; option = strtok(NULL, ",")) {
    if (strncmp(option, "interval_us=", 12) == 0 && atol(option + 12) > 0) {
      interval_us = atol(option + 12);
    } else if (strncmp(option, "top=", 4) == 0 && atoi(option + 4) > 0) {
      top_count = atoi(option + 4);
    } else {
      fprintf(stderr, "native_profiler: bad option '%s' (interval_us=N, top=N)\n", option);
      return 0;
    }
  }
  return 1;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void* reserved) {
  (void)reserved;
  if (!parse_options(options)) return JNI_ERR;
  if ((*vm)->GetEnv(vm, (void**)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  jvmtiEventCallbacks events;
  memset(&events, 0, sizeof(events));
  events.VMInit = on_vm_init;
  events.VMDeath = on_vm_death;
  (*jvmti)->SetEventCallbacks(jvmti, &events, sizeof(events));
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
  /* The opt-in: tables of every loaded object are ready when Enable returns (WAIT). */
  jvmtiError err = JvmkitSetJavaVM(vm);
  if (err == JVMTI_ERROR_NONE) err = JvmkitSetNativeFrames(JVMKIT_NATIVE_ON | JVMKIT_NATIVE_WAIT);
  if (err == JVMTI_ERROR_NONE) err = EnableRequestStackTrace(jvmti);
  printf("native_profiler: EnableRequestStackTrace with native frames: JVMTI error %d\n", (int)err);
  fflush(stdout);
  if (err != JVMTI_ERROR_NONE) return JNI_ERR;
  enabled = 1;
  return JNI_OK;
}
