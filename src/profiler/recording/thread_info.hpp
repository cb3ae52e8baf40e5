// ThreadInfo: JVMTI GetThreadInfo's result, owned. GetThreadInfo hands out a name the caller must
// Deallocate and two JNI local references (thread group, context class loader) the caller must
// delete (a callback thread that stays in native code would otherwise collect them); this type
// releases all three when it goes out of scope.
#pragma once

#include <jvmti.h>

namespace jvmkit::prof {

class ThreadInfo {
 public:
  // Asks JVMTI about THREAD (not null: JVMTI reads null as the current thread). JNI, the calling
  // thread's JNIEnv, deletes the local references; when it is null they are left to the JVM.
  ThreadInfo(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread) : jvmti_(jvmti), jni_(jni) {
    ok_ = jvmti_->GetThreadInfo(thread, &info_) == JVMTI_ERROR_NONE;
  }

  ~ThreadInfo() {
    if (!ok_) return;
    jvmti_->Deallocate(reinterpret_cast<unsigned char*>(info_.name));
    if (jni_ == nullptr) return;
    if (info_.thread_group != nullptr) jni_->DeleteLocalRef(info_.thread_group);
    if (info_.context_class_loader != nullptr) jni_->DeleteLocalRef(info_.context_class_loader);
  }

  ThreadInfo(const ThreadInfo&) = delete;
  ThreadInfo& operator=(const ThreadInfo&) = delete;

  bool ok() const { return ok_; }  // GetThreadInfo succeeded
  // The thread's name in modified UTF-8, or null (no name, or GetThreadInfo failed).
  const char* name() const { return ok_ ? info_.name : nullptr; }

 private:
  jvmtiEnv* jvmti_;
  JNIEnv* jni_;
  jvmtiThreadInfo info_{};
  bool ok_ = false;
};

}  // namespace jvmkit::prof
