// JNI side of jvmkit.test.core.ThreadLayoutMain: exercises hotspot/java_thread.hpp inside a real JVM.
#include <jni.h>
#include <pthread.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "hotspot/java_thread.hpp"

using jvmkit::hotspot::JavaThreadLayout;

namespace {

int fail(const char* label, const char* what) {
  std::printf("FAIL [%s]: %s\n", label, what);
  return 1;
}

int check_stack(const char* label, const JavaThreadLayout& layout, JNIEnv* env) {
  int failures = 0;
  const jvmkit::hotspot::StackRange stack = layout.stack_of(env);
  int local = 0;
  const auto here = reinterpret_cast<uintptr_t>(&local);
  if (!stack.contains(here)) failures += fail(label, "stack bounds do not contain a local variable");
  // HotSpot's default thread stack is 1 MiB on Linux x86_64 (8 MiB for the primordial one).
  if (stack.hi - stack.lo < 64 * 1024 || stack.hi - stack.lo > 1024L * 1024 * 1024) {
    failures += fail(label, "implausible stack size");
  }
  return failures;
}

int check_pending(const char* label, const JavaThreadLayout& layout, JNIEnv* env) {
  int failures = 0;
  if (layout.has_pending_exception(env)) failures += fail(label, "pending exception seen where there is none");
  jclass c = env->FindClass("java/lang/RuntimeException");
  env->ThrowNew(c, "test");
  if (!layout.has_pending_exception(env)) failures += fail(label, "ThrowNew's exception not seen");
  env->ExceptionClear();
  if (layout.has_pending_exception(env)) failures += fail(label, "exception still seen after ExceptionClear");
  env->DeleteLocalRef(c);
  return failures;
}

}  // namespace

extern "C" JNIEXPORT jint JNICALL Java_jvmkit_test_hotspot_ThreadLayoutMain_checkCurrentThread(JNIEnv* env, jclass,
                                                                                               jstring jlabel) {
  const char* chars = env->GetStringUTFChars(jlabel, nullptr);
  std::string label = chars != nullptr ? chars : "?";
  env->ReleaseStringUTFChars(jlabel, chars);
  std::string why;
  const JavaThreadLayout* layout = jvmkit::hotspot::learn_java_thread_layout(env, &why);
  if (layout == nullptr) {
    std::printf("FAIL [%s]: layout not learnt: %s\n", label.c_str(), why.c_str());
    return 1;
  }
  if (layout != jvmkit::hotspot::known_java_thread_layout()) return fail(label.c_str(), "layout not published");
  std::printf("[%s] env offset %ld, stack base +%ld, size +%ld, pending exception +%ld\n", label.c_str(),
              static_cast<long>(layout->env_offset), static_cast<long>(layout->stack_base),
              static_cast<long>(layout->stack_size), static_cast<long>(layout->pending_exception));
  return check_stack(label.c_str(), *layout, env) + check_pending(label.c_str(), *layout, env);
}

extern "C" JNIEXPORT jlong JNICALL Java_jvmkit_test_hotspot_ThreadLayoutMain_stackTop(JNIEnv* env, jclass) {
  const JavaThreadLayout* layout = jvmkit::hotspot::known_java_thread_layout();
  return layout != nullptr ? static_cast<jlong>(layout->stack_of(env).hi) : 0;
}

extern "C" JNIEXPORT jboolean JNICALL Java_jvmkit_test_hotspot_ThreadLayoutMain_seesExceptionFromJava(JNIEnv* env,
                                                                                                      jclass klass) {
  const JavaThreadLayout* layout = jvmkit::hotspot::known_java_thread_layout();
  jmethodID thrower = env->GetStaticMethodID(klass, "thrower", "()V");
  env->CallStaticVoidMethod(klass, thrower);
  const bool seen = layout != nullptr && layout->has_pending_exception(env);
  const bool pending = env->ExceptionCheck();
  env->ExceptionClear();
  return seen && pending ? JNI_TRUE : JNI_FALSE;
}

// HotSpot's thread key: learnt on a Java thread, which it reports attached; a native thread that
// never attached is reported detached.
extern "C" JNIEXPORT jint JNICALL Java_jvmkit_test_hotspot_ThreadLayoutMain_checkThreadKey(JNIEnv* env, jclass,
                                                                                           jstring jlabel) {
  using jvmkit::hotspot::Attachment;
  const char* chars = env->GetStringUTFChars(jlabel, nullptr);
  std::string label = chars != nullptr ? chars : "?";
  env->ReleaseStringUTFChars(jlabel, chars);
  std::string why;
  if (!jvmkit::hotspot::learn_thread_key(env, &why))
    return fail(label.c_str(), ("thread key not learnt: " + why).c_str());
  int failures = 0;
  if (jvmkit::hotspot::current_thread_attachment() != Attachment::kAttached) {
    failures += fail(label.c_str(), "a Java thread is not reported attached");
  }
  pthread_t native;
  Attachment seen = Attachment::kAttached;
  auto probe = [](void* out) -> void* {
    *static_cast<Attachment*>(out) = jvmkit::hotspot::current_thread_attachment();
    return nullptr;
  };
  if (pthread_create(&native, nullptr, probe, &seen) != 0)
    return failures + fail(label.c_str(), "pthread_create failed");
  pthread_join(native, nullptr);
  if (seen != Attachment::kDetached) failures += fail(label.c_str(), "a native thread is not reported detached");
  return failures;
}
