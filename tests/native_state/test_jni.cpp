// JNI bindings of the JVM tests (java/tests/native_state): thin wrappers that expose the C API of
// native_state.h to Java, states being jlong values cast to pointers. The Java programs assert.
#include <jni.h>

#include <atomic>
#include <cstdint>

#include "jvmkit/native_state.h"

namespace {

state_table* T(jlong t) { return reinterpret_cast<state_table*>(static_cast<intptr_t>(t)); }
void* S(jlong s) { return reinterpret_cast<void*>(static_cast<intptr_t>(s)); }
jlong L(const void* p) { return static_cast<jlong>(reinterpret_cast<intptr_t>(p)); }

std::atomic<long> g_handed{0};       // states given to the sweep/free callbacks
std::atomic<jlong> g_handed_sum{0};  // their sum, to check which states were handed
int g_pending_failures = -1;         // result of the last pendingException() run
jlong g_last = 0;                    // the last value returned by a wrapper: Java cannot see it when it throws

jlong last(jlong v) {
  g_last = v;
  return v;
}

void count_state(JNIEnv*, void* state, void*) {
  g_handed.fetch_add(1);
  g_handed_sum.fetch_add(L(state));
}

}  // namespace

extern "C" {

JNIEXPORT jlong JNICALL Java_jvmkit_test_nativestate_Native_init(JNIEnv* env, jclass, jclass clazz, jint size) {
  return last(L(size == -1 ? init_state_table(env, clazz) : init_state_table_with_size(env, clazz, size)));
}

JNIEXPORT jint JNICALL Java_jvmkit_test_nativestate_Native_set(JNIEnv* env, jclass, jlong t, jobject o, jlong s) {
  return static_cast<jint>(last(set_state(env, o, T(t), S(s))));
}

JNIEXPORT jlong JNICALL Java_jvmkit_test_nativestate_Native_get(JNIEnv* env, jclass, jlong t, jobject o) {
  return last(L(get_state(env, o, T(t))));
}

JNIEXPORT jlong JNICALL Java_jvmkit_test_nativestate_Native_remove(JNIEnv* env, jclass, jlong t, jobject o) {
  return last(L(remove_state_slot(env, o, T(t))));
}

JNIEXPORT void JNICALL Java_jvmkit_test_nativestate_Native_setOid(JNIEnv* env, jclass, jlong t, jobject lock, jint id,
                                                                  jlong s) {
  set_state_oid(env, lock, T(t), id, S(s));
}

JNIEXPORT jlong JNICALL Java_jvmkit_test_nativestate_Native_getOid(JNIEnv* env, jclass, jlong t, jobject lock,
                                                                   jint id) {
  return last(L(get_state_oid(env, lock, T(t), id)));
}

JNIEXPORT jlong JNICALL Java_jvmkit_test_nativestate_Native_removeOid(JNIEnv* env, jclass, jlong t, jobject lock,
                                                                      jint id) {
  return last(L(remove_state_oid(env, lock, T(t), id)));
}

JNIEXPORT jint JNICALL Java_jvmkit_test_nativestate_Native_sweep(JNIEnv* env, jclass, jlong t) {
  return sweep_state_table(env, T(t), count_state, nullptr);
}

JNIEXPORT jint JNICALL Java_jvmkit_test_nativestate_Native_sweepNullCallback(JNIEnv* env, jclass, jlong t) {
  return static_cast<jint>(last(sweep_state_table(env, T(t), nullptr, nullptr)));
}

JNIEXPORT void JNICALL Java_jvmkit_test_nativestate_Native_free(JNIEnv* env, jclass, jlong t) {
  free_state_table(env, T(t), count_state, nullptr);
}

JNIEXPORT jint JNICALL Java_jvmkit_test_nativestate_Native_size(JNIEnv*, jclass, jlong t) {
  return state_table_size(T(t));
}

JNIEXPORT jlong JNICALL Java_jvmkit_test_nativestate_Native_handedCount(JNIEnv*, jclass) { return g_handed.load(); }
JNIEXPORT jlong JNICALL Java_jvmkit_test_nativestate_Native_handedSum(JNIEnv*, jclass) { return g_handed_sum.load(); }

// Throws PENDING, then calls every function of the API with otherwise valid arguments. Each one
// must fail and leave exactly PENDING pending. Counts the violations (read with pendingFailures()),
// and returns with PENDING still pending, so that Java sees it thrown.
JNIEXPORT void JNICALL Java_jvmkit_test_nativestate_Native_callAllWithPending(JNIEnv* env, jclass, jlong t,
                                                                              jclass clazz, jobject o,
                                                                              jthrowable pending) {
  int failures = 0;
  env->Throw(pending);
  // Checks that PENDING is what is pending, and throws it again (clearing it first so that the
  // comparison is itself a legal JNI call under -Xcheck:jni).
  auto still_pending = [&] {
    jthrowable now = env->ExceptionOccurred();
    if (now == nullptr) {
      ++failures;
    } else {
      env->ExceptionClear();
      if (!env->IsSameObject(now, pending)) ++failures;
      env->DeleteLocalRef(now);
    }
    env->Throw(pending);
  };
  if (init_state_table(env, clazz) != nullptr) ++failures;
  still_pending();
  if (init_state_table_with_size(env, clazz, 0) != nullptr) ++failures;
  still_pending();
  if (set_state(env, o, T(t), S(8)) >= 0) ++failures;
  still_pending();
  if (get_state(env, o, T(t)) != nullptr) ++failures;
  still_pending();
  if (remove_state_slot(env, o, T(t)) != nullptr) ++failures;
  still_pending();
  set_state_oid(env, o, T(t), 5, S(8));
  still_pending();
  if (get_state_oid(env, o, T(t), 5) != nullptr) ++failures;
  still_pending();
  if (remove_state_oid(env, o, T(t), 5) != nullptr) ++failures;
  still_pending();
  if (sweep_state_table(env, T(t), count_state, nullptr) != -1) ++failures;
  still_pending();
  g_pending_failures = failures;
}

JNIEXPORT jlong JNICALL Java_jvmkit_test_nativestate_Native_lastResult(JNIEnv*, jclass) { return g_last; }

JNIEXPORT jint JNICALL Java_jvmkit_test_nativestate_Native_pendingFailures(JNIEnv*, jclass) {
  return g_pending_failures;
}

}  // extern "C"
