/* Native code that makes stacks hard to unwind, for the native-frames torture test
 * (NativeTortureMain): each function runs for about the given milliseconds while every thread is
 * sampled at 1 kHz. The library is built without frame pointers, but for the two functions that
 * need one (they reach their own return-address slot through it). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TORTURE_EXPORT JNIEXPORT __attribute__((noinline))

static volatile unsigned sink;

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Spins until the deadline, with rbp holding a counter, not a frame (the compiler saves the
 * caller's rbp and says so in the CFI). */
static __attribute__((noinline)) void spin_with_rbp(long long until) {
  __asm__ volatile("xor %%ebp, %%ebp" ::: "rbp");
  while (now_ms() < until) {
    for (int i = 0; i < 1000; i++) __asm__ volatile("add $7, %%rbp" ::: "rbp");
    sink++;
  }
}

TORTURE_EXPORT void JNICALL Java_jvmkit_test_walk_NativeTortureMain_rbpGeneral(JNIEnv* env, jclass cls, jint ms) {
  (void)env;
  (void)cls;
  spin_with_rbp(now_ms() + ms);
  sink++;
}

/* Overwrites its own return address with WORD while it spins, then puts it back: a sample in
 * between reads a return address that follows no call (or points nowhere). */
static __attribute__((noinline, optimize("no-omit-frame-pointer"))) void spin_with_bad_return(long long until,
                                                                                              uintptr_t word) {
  volatile uintptr_t* slot = (volatile uintptr_t*)__builtin_frame_address(0) + 1;
  const uintptr_t saved = *slot;
  *slot = word;
  while (now_ms() < until) sink++;
  *slot = saved;
}

TORTURE_EXPORT void JNICALL Java_jvmkit_test_walk_NativeTortureMain_corruptedWord(JNIEnv* env, jclass cls, jint ms) {
  (void)env;
  (void)cls;
  const long long until = now_ms() + ms;
  /* Unmapped, then a function's first byte (no call before it), then the middle of the heap. */
  static int heap_word;
  const uintptr_t words[] = {0x1000, (uintptr_t)&getpid, (uintptr_t)&heap_word};
  for (int round = 0; now_ms() < until; round++) spin_with_bad_return(now_ms() + 5, words[round % 3]);
}

TORTURE_EXPORT void JNICALL Java_jvmkit_test_walk_NativeTortureMain_dlopenLoop(JNIEnv* env, jclass cls, jstring path,
                                                                               jint ms) {
  (void)cls;
  const char* file = (*env)->GetStringUTFChars(env, path, NULL);
  const long long until = now_ms() + ms;
  while (now_ms() < until) {
    void* handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) break;
    unsigned (*burn)(unsigned) = (unsigned (*)(unsigned))dlsym(handle, "torture_dl_burn");
    if (burn != NULL) sink += burn(200000);
    dlclose(handle);
  }
  (*env)->ReleaseStringUTFChars(env, path, file);
}

static JavaVM* vm;

static void* short_thread(void* attach) {
  JNIEnv* env = NULL;
  JavaVMAttachArgs args = {JNI_VERSION_1_6, (char*)"torture-attached", NULL};
  if (attach != NULL) (*vm)->AttachCurrentThread(vm, (void**)&env, &args);
  spin_with_rbp(now_ms() + 3);
  if (attach != NULL) (*vm)->DetachCurrentThread(vm);
  return NULL;
}

/* Threads that start and end in native code: half of them attach to the JVM meanwhile. */
TORTURE_EXPORT void JNICALL Java_jvmkit_test_walk_NativeTortureMain_nativeThreads(JNIEnv* env, jclass cls, jint ms) {
  (void)cls;
  (*env)->GetJavaVM(env, &vm);
  const long long until = now_ms() + ms;
  for (int round = 0; now_ms() < until; round++) {
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) pthread_create(&threads[i], NULL, short_thread, (i & 1) ? (void*)1 : NULL);
    for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);
  }
}

/* fork from a JNI call: the child burns a little in C and leaves without running any Java. */
TORTURE_EXPORT void JNICALL Java_jvmkit_test_walk_NativeTortureMain_forkLoop(JNIEnv* env, jclass cls, jint ms) {
  (void)env;
  (void)cls;
  const long long until = now_ms() + ms;
  while (now_ms() < until) {
    const pid_t child = fork();
    if (child == 0) {
      spin_with_rbp(now_ms() + 5);
      _exit(0);
    }
    if (child > 0) waitpid(child, NULL, 0);
    spin_with_rbp(now_ms() + 5);
  }
}
