// Native methods of the native state benchmark (StateBench.java): the same three operations
// (get, set, remove) over four implementations, so that the Java loop around them is identical:
//   jk*  jvmkit (native_state.h)        cp*  the Classpath design (classpath_table.c)
//   tag* JVMTI GetTag/SetTag            fld* a Java `long handle` field (the floor)
// plus nop(), an empty native call: the cost every variant pays before doing anything.
#include <jni.h>
#include <jvmti.h>

#include <cstdint>

#include "classpath_table.h"
#include "jvmkit/native_state.h"

namespace {

state_table* g_jk = nullptr;
cp_table* g_cp = nullptr;
jvmtiEnv* g_jvmti = nullptr;
jfieldID g_handle = nullptr;
jfieldID g_jk_field = nullptr;

void* P(jlong v) { return reinterpret_cast<void*>(static_cast<intptr_t>(v)); }
jlong L(void* p) { return static_cast<jlong>(reinterpret_cast<intptr_t>(p)); }

}  // namespace

extern "C" {

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void*) {
  if (vm->GetEnv(reinterpret_cast<void**>(&g_jvmti), JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  jvmtiCapabilities caps{};
  caps.can_tag_objects = 1;
  if (g_jvmti->AddCapabilities(&caps) != JVMTI_ERROR_NONE) g_jvmti = nullptr;  // reported by init()
  return JNI_VERSION_1_6;
}

// Returns false when a variant cannot run (JVMTI tagging unavailable).
JNIEXPORT jboolean JNICALL Java_jvmkit_bench_nativestate_StateBench_init(JNIEnv* env, jclass, jclass target) {
  g_jk = init_state_table(env, target);
  g_cp = cp_init(env, target, 97);
  g_handle = env->GetFieldID(target, "handle", "J");
  g_jk_field = env->GetFieldID(target, "native_state", "I");
  return g_jk != nullptr && g_cp != nullptr && g_handle != nullptr && g_jvmti != nullptr;
}

JNIEXPORT jlong JNICALL Java_jvmkit_bench_nativestate_StateBench_nop(JNIEnv*, jclass, jobject) { return 1; }

// The JNI calls get_state cannot avoid, each alone: they bound how fast any identity-checked
// lookup behind a JNI call can be.
JNIEXPORT jlong JNICALL Java_jvmkit_bench_nativestate_StateBench_exceptionCheck(JNIEnv* env, jclass, jobject) {
  return env->ExceptionCheck();
}
JNIEXPORT jlong JNICALL Java_jvmkit_bench_nativestate_StateBench_getIntField(JNIEnv* env, jclass, jobject o) {
  return env->GetIntField(o, g_jk_field);
}
JNIEXPORT jlong JNICALL Java_jvmkit_bench_nativestate_StateBench_isSameObject(JNIEnv* env, jclass, jobject o) {
  return env->IsSameObject(o, o);
}
// IsSameObject as get_state calls it: a weak global reference against the argument.
JNIEXPORT jlong JNICALL Java_jvmkit_bench_nativestate_StateBench_isSameWeak(JNIEnv* env, jclass, jobject o) {
  static jweak weak = env->NewWeakGlobalRef(o);
  return env->IsSameObject(weak, o);
}

JNIEXPORT jlong JNICALL Java_jvmkit_bench_nativestate_StateBench_jkGet(JNIEnv* env, jclass, jobject o) {
  return L(get_state(env, o, g_jk));
}
JNIEXPORT jlong JNICALL Java_jvmkit_bench_nativestate_StateBench_jkSet(JNIEnv* env, jclass, jobject o, jlong s) {
  return set_state(env, o, g_jk, P(s));
}
JNIEXPORT jlong JNICALL Java_jvmkit_bench_nativestate_StateBench_jkRemove(JNIEnv* env, jclass, jobject o) {
  return L(remove_state_slot(env, o, g_jk));
}

JNIEXPORT jlong JNICALL Java_jvmkit_bench_nativestate_StateBench_cpGet(JNIEnv* env, jclass, jobject o) {
  return L(cp_get(env, o, g_cp));
}
JNIEXPORT jlong JNICALL Java_jvmkit_bench_nativestate_StateBench_cpSet(JNIEnv* env, jclass, jobject o, jlong s) {
  return cp_set(env, o, g_cp, P(s));
}
JNIEXPORT jlong JNICALL Java_jvmkit_bench_nativestate_StateBench_cpRemove(JNIEnv* env, jclass, jobject o) {
  return L(cp_remove(env, o, g_cp));
}

JNIEXPORT jlong JNICALL Java_jvmkit_bench_nativestate_StateBench_tagGet(JNIEnv*, jclass, jobject o) {
  jlong tag = 0;
  g_jvmti->GetTag(o, &tag);
  return tag;
}
JNIEXPORT jlong JNICALL Java_jvmkit_bench_nativestate_StateBench_tagSet(JNIEnv*, jclass, jobject o, jlong s) {
  return g_jvmti->SetTag(o, s) == JVMTI_ERROR_NONE ? 0 : -1;
}
JNIEXPORT jlong JNICALL Java_jvmkit_bench_nativestate_StateBench_tagRemove(JNIEnv*, jclass, jobject o) {
  jlong tag = 0;
  g_jvmti->GetTag(o, &tag);
  if (tag != 0) g_jvmti->SetTag(o, 0);
  return tag;
}

JNIEXPORT jlong JNICALL Java_jvmkit_bench_nativestate_StateBench_fldGet(JNIEnv* env, jclass, jobject o) {
  return env->GetLongField(o, g_handle);
}
JNIEXPORT jlong JNICALL Java_jvmkit_bench_nativestate_StateBench_fldSet(JNIEnv* env, jclass, jobject o, jlong s) {
  env->SetLongField(o, g_handle, s);
  return 0;
}
JNIEXPORT jlong JNICALL Java_jvmkit_bench_nativestate_StateBench_fldRemove(JNIEnv* env, jclass, jobject o) {
  jlong s = env->GetLongField(o, g_handle);
  env->SetLongField(o, g_handle, 0);
  return s;
}

}  // extern "C"
