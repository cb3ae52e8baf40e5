/* A stand-in for a jvmkit profiler agent of another version, loaded at JVM start: it exports what
 * a copy of libjvmkit_prof.so looks for in the other copies of a process (its version, whether it
 * runs, its command entry) and nothing else. The real agent, loaded by attach next to it, must
 * refuse to act and name both versions. */
#include <jni.h>

__attribute__((visibility("default"))) const char* jvmkit_prof_version(void) { return "0.0.1-other"; }
__attribute__((visibility("default"))) jint jvmkit_prof_loaded(void) { return 1; }
__attribute__((visibility("default"))) jint jvmkit_prof_command(JavaVM* vm, const char* options) {
  (void)vm;
  (void)options;
  return 0; /* never reached: the real agent refuses before it would forward */
}
__attribute__((visibility("default"))) jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void* reserved) {
  (void)vm;
  (void)options;
  (void)reserved;
  return JNI_OK;
}
