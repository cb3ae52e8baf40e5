/*
 * The floor of allocation profiling through JVMTI: an agent that only turns HotSpot's heap
 * sampler on (SetHeapSamplingInterval, SampledObjectAlloc) with a callback that does nothing.
 * What it costs, every profiler built on SampledObjectAlloc pays; the allocation benchmark
 * (alloc_lock_overhead.sh) runs it next to the profilers. Option: the interval in bytes
 * (default 524288).
 */
#include <jvmti.h>
#include <stdlib.h>
#include <string.h>

static void JNICALL on_sampled_alloc(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, jobject object, jclass klass,
                                     jlong size) {
  (void)jvmti, (void)jni, (void)thread, (void)object, (void)klass, (void)size;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void* reserved) {
  (void)reserved;
  jvmtiEnv* jvmti = NULL;
  if ((*vm)->GetEnv(vm, (void**)&jvmti, JVMTI_VERSION_11) != JNI_OK) return JNI_ERR;
  jvmtiCapabilities caps;
  memset(&caps, 0, sizeof(caps));
  caps.can_generate_sampled_object_alloc_events = 1;
  if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) return JNI_ERR;
  jvmtiEventCallbacks callbacks;
  memset(&callbacks, 0, sizeof(callbacks));
  callbacks.SampledObjectAlloc = on_sampled_alloc;
  const jint interval = options != NULL && atoi(options) > 0 ? atoi(options) : 524288;
  if ((*jvmti)->SetEventCallbacks(jvmti, &callbacks, sizeof(callbacks)) != JVMTI_ERROR_NONE ||
      (*jvmti)->SetHeapSamplingInterval(jvmti, interval) != JVMTI_ERROR_NONE ||
      (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL) !=
          JVMTI_ERROR_NONE) {
    return JNI_ERR;
  }
  return JNI_OK;
}
