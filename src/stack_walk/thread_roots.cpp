#include "stack_walk/thread_roots.hpp"

#include <cstring>

namespace jvmkit::walk {

namespace {

// A JVMTI-allocated string, freed on every path.
class JvmtiString {
 public:
  explicit JvmtiString(jvmtiEnv* jvmti) : jvmti_(jvmti) {}
  ~JvmtiString() {
    if (text_ != nullptr) jvmti_->Deallocate(reinterpret_cast<unsigned char*>(text_));
  }
  JvmtiString(const JvmtiString&) = delete;
  JvmtiString& operator=(const JvmtiString&) = delete;
  char** out() { return &text_; }
  bool is(const char* expected) const { return text_ != nullptr && std::strcmp(text_, expected) == 0; }

 private:
  jvmtiEnv* jvmti_;
  char* text_ = nullptr;
};

}  // namespace

bool ThreadRoots::is_root(JNIEnv* jni, jvmtiEnv* jvmti, jmethodID method) {
  auto it = cache_.find(method);
  if (it != cache_.end()) return it->second;
  const bool root = classify(jni, jvmti, method);
  if (cache_.size() >= kMaxCached) cache_.clear();
  cache_.emplace(method, root);
  return root;
}

bool ThreadRoots::classify(JNIEnv* jni, jvmtiEnv* jvmti, jmethodID method) {
  if (thread_class_ == nullptr) {
    jclass local = jni->FindClass("java/lang/Thread");
    if (local == nullptr) {
      jni->ExceptionClear();
      return true;
    }
    thread_class_ = static_cast<jclass>(jni->NewGlobalRef(local));
    jni->DeleteLocalRef(local);
    if (thread_class_ == nullptr) return true;
  }
  jclass holder = nullptr;
  if (jvmti->GetMethodDeclaringClass(method, &holder) != JVMTI_ERROR_NONE || holder == nullptr) return true;
  JvmtiString name(jvmti), signature(jvmti), class_signature(jvmti);
  const bool named = jvmti->GetMethodName(method, name.out(), signature.out(), nullptr) == JVMTI_ERROR_NONE &&
                     jvmti->GetClassSignature(holder, class_signature.out(), nullptr) == JVMTI_ERROR_NONE;
  bool root = true;
  if (named) {
    const bool in_thread = jni->IsAssignableFrom(holder, thread_class_) == JNI_TRUE;
    const bool is_thread = class_signature.is("Ljava/lang/Thread;");
    root = (in_thread && name.is("run") && signature.is("()V")) ||
           (is_thread && (name.is("exit") || name.is("dispatchUncaughtException"))) ||
           class_signature.is("Ljdk/internal/vm/Continuation;");
  }
  jni->DeleteLocalRef(holder);
  return root;
}

void ThreadRoots::reset(JNIEnv* jni) {
  cache_.clear();
  if (thread_class_ != nullptr && jni != nullptr) jni->DeleteGlobalRef(thread_class_);
  thread_class_ = nullptr;
}

}  // namespace jvmkit::walk
