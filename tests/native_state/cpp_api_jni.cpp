// JNI side of CppApiTest: exercises jvmkit::StateTable<T> (include/jvmkit/state_table.hpp).
#include <jni.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "jvmkit/state_table.hpp"

namespace {

std::atomic<long> g_deleted{0};

// A state type whose deletions are counted: the table must delete exactly what it owns.
struct Counted {
  explicit Counted(int v) : value(v) {}
  ~Counted() { g_deleted.fetch_add(1); }
  int value;
};

using Table = jvmkit::StateTable<Counted>;

Table* T(jlong t) { return reinterpret_cast<Table*>(static_cast<intptr_t>(t)); }

bool fail(JNIEnv* env, const std::string& what) {
  if (!env->ExceptionCheck()) {
    jclass c = env->FindClass("java/lang/AssertionError");
    if (c != nullptr) env->ThrowNew(c, what.c_str());
  }
  return false;
}

}  // namespace

extern "C" {

JNIEXPORT jlong JNICALL Java_jvmkit_test_nativestate_CppApiTest_create(JNIEnv* env, jclass, jclass clazz) {
  std::optional<Table> t = Table::create(env, clazz, 3);
  if (!t) return 0;
  return static_cast<jlong>(reinterpret_cast<intptr_t>(new Table(std::move(*t))));
}

// Binds new Counted(i) to OBJS[i]; then checks get, replace, remove and the object-id calls.
JNIEXPORT jboolean JNICALL Java_jvmkit_test_nativestate_CppApiTest_exercise(JNIEnv* env, jclass, jlong h,
                                                                            jobjectArray objs) {
  Table& t = *T(h);
  jsize n = env->GetArrayLength(objs);
  long deleted0 = g_deleted.load();
  for (jsize i = 0; i < n; ++i) {
    jobject o = env->GetObjectArrayElement(objs, i);
    if (!t.set(env, o, std::make_unique<Counted>(i))) return fail(env, "set");
    env->DeleteLocalRef(o);
  }
  for (jsize i = 0; i < n; ++i) {
    jobject o = env->GetObjectArrayElement(objs, i);
    Counted* c = t.get(env, o);
    if (c == nullptr || c->value != i) return fail(env, "get " + std::to_string(i));
    env->DeleteLocalRef(o);
  }
  jobject first = env->GetObjectArrayElement(objs, 0);
  if (!t.set(env, first, std::make_unique<Counted>(1000))) return fail(env, "replace");
  if (g_deleted.load() != deleted0 + 1) return fail(env, "replacing deletes the old state");
  std::unique_ptr<Counted> back = t.remove(env, first);
  if (!back || back->value != 1000) return fail(env, "remove gives the state back");
  if (t.get(env, first) != nullptr) return fail(env, "get after remove");
  if (!t.set(env, first, std::make_unique<Counted>(2000))) return fail(env, "set after remove");
  const long deleted1 = g_deleted.load();
  if (!t.set(env, first, nullptr)) return fail(env, "set(nullptr) succeeds");
  if (env->ExceptionCheck()) return fail(env, "set(nullptr) raises nothing");
  if (g_deleted.load() != deleted1 + 1) return fail(env, "set(nullptr) deletes the old state");
  if (t.get(env, first) != nullptr) return fail(env, "get after set(nullptr)");
  back.reset();
  if (!t.set(env, nullptr, -5, std::make_unique<Counted>(-5))) return fail(env, "set oid");
  if (t.get(env, nullptr, -5) == nullptr || t.get(env, nullptr, -5)->value != -5) return fail(env, "get oid");
  if (t.remove(env, nullptr, -5)->value != -5) return fail(env, "remove oid");
  if (t.size() != n - 1) return fail(env, "size " + std::to_string(t.size()));
  // Moving the table keeps every state.
  Table moved(std::move(t));
  jobject second = env->GetObjectArrayElement(objs, 1);
  if (moved.get(env, second) == nullptr || moved.get(env, second)->value != 1) return fail(env, "after move");
  t = std::move(moved);
  return JNI_TRUE;
}

JNIEXPORT jint JNICALL Java_jvmkit_test_nativestate_CppApiTest_sweep(JNIEnv* env, jclass, jlong h) {
  return T(h)->sweep(env);
}

JNIEXPORT void JNICALL Java_jvmkit_test_nativestate_CppApiTest_destroy(JNIEnv*, jclass, jlong h) { delete T(h); }

JNIEXPORT jlong JNICALL Java_jvmkit_test_nativestate_CppApiTest_deleted(JNIEnv*, jclass) { return g_deleted.load(); }

// A table destroyed on a thread that is not attached to the JVM: the destructor attaches it.
JNIEXPORT void JNICALL Java_jvmkit_test_nativestate_CppApiTest_destroyOnNativeThread(JNIEnv*, jclass, jlong h) {
  Table* t = T(h);
  std::thread th([t] { delete t; });
  th.join();
}

}  // extern "C"
