// The FALLBACK frame type, for frames the capture's physical walk did not reach (exact types come
// from exact_frame_types.hpp; see docs/stack_walk.md "Frame types").
//
// A frame of a method declared native is JVMTI_FRAME_NATIVE; a frame of a method that has live
// JIT-compiled code (CompiledMethodLoad seen, CompiledMethodUnload not yet) is JVMTI_FRAME_JIT; any
// other frame is JVMTI_FRAME_INTERPRETER. Known errors: a compiled method may still run
// interpreted (OSR entry, deoptimisation), and inlined frames are reported as JIT.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <mutex>
#include <unordered_map>

#include <jvmkit/stack_walk.h>

namespace jvmkit::walk {

class FrameTypes {
 public:
  void compiled(jmethodID method) {
    std::lock_guard<std::mutex> lock(mutex_);
    live_[method]++;
  }
  void unloaded(jmethodID method) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(method);
    if (it != live_.end() && --it->second <= 0) live_.erase(it);
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    live_.clear();
  }
  jvmtiFrameType type_of(jvmtiEnv* jvmti, jmethodID method, bool native_marker) {
    if (native_marker) return JVMTI_FRAME_NATIVE;
    jboolean is_native = JNI_FALSE;
    if (jvmti->IsMethodNative(method, &is_native) == JVMTI_ERROR_NONE && is_native) return JVMTI_FRAME_NATIVE;
    std::lock_guard<std::mutex> lock(mutex_);
    return live_.count(method) ? JVMTI_FRAME_JIT : JVMTI_FRAME_INTERPRETER;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<jmethodID, int> live_;
};

}  // namespace jvmkit::walk
