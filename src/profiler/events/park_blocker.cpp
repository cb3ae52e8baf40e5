#include "profiler/events/park_blocker.hpp"

#include <atomic>

namespace jvmkit::prof {

namespace {

std::atomic<jfieldID> g_park_blocker{nullptr};

}  // namespace

Error learn_park_blocker(JNIEnv* jni) {
  if (g_park_blocker.load(std::memory_order_acquire) != nullptr) return Error::ok();
  jclass thread_class = jni->FindClass("java/lang/Thread");
  jfieldID field =
      thread_class != nullptr ? jni->GetFieldID(thread_class, "parkBlocker", "Ljava/lang/Object;") : nullptr;
  if (jni->ExceptionCheck()) jni->ExceptionClear();
  if (thread_class != nullptr) jni->DeleteLocalRef(thread_class);
  if (field == nullptr) return Error("no java.lang.Thread.parkBlocker field");
  g_park_blocker.store(field, std::memory_order_release);
  return Error::ok();
}

jclass park_blocker_class(JNIEnv* jni, jthread thread) {
  jfieldID field = g_park_blocker.load(std::memory_order_acquire);
  if (field == nullptr || thread == nullptr || jni->ExceptionCheck()) return nullptr;
  jobject blocker = jni->GetObjectField(thread, field);
  if (blocker == nullptr) return nullptr;
  jclass klass = jni->GetObjectClass(blocker);
  jni->DeleteLocalRef(blocker);
  return klass;
}

}  // namespace jvmkit::prof
