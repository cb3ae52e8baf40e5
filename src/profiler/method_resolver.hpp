// MethodResolver: jmethodID -> Profile method and source line, resolved inside the stack-trace
// callbacks, while the stack-walk library keeps the declaring class pinned (stack_walk.h: a
// jmethodID is valid until endStackTrace returns). Names are resolved once per jmethodID and
// cached; the cache never dereferences an id outside a callback.
//
// Cache caveat: a jmethodID is used as the key. HotSpot does not hand out a jmethodID of an
// unloaded class to another method on JDK 25 (ids are never reused); on JDK 17/21 a slot can be
// reused only after its method was freed by class redefinition, which profiled programs rarely do.
#pragma once

#include <jvmti.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "profiler/profile.hpp"

namespace jvmkit::prof {

// "Ljava/lang/String;" -> "java.lang.String"; "[I" -> "int[]".
std::string class_name_from_signature(const char* signature);

class MethodResolver {
 public:
  MethodResolver(JavaVM* vm, jvmtiEnv* jvmti, Profile* profile) : vm_(vm), jvmti_(jvmti), profile_(profile) {}

  // The profile method of METHOD and the source line of BCI in it (0 when unknown). Only valid
  // while METHOD is (inside a stack-trace callback).
  void resolve(jmethodID method, jlocation bci, uint32_t* method_index, int32_t* line);

  size_t resolved() const { return cache_.size(); }
  int64_t errors() const { return errors_; }

 private:
  struct Entry {
    uint32_t method;
    std::vector<std::pair<jlocation, jint>> lines;  // (start bci, line), sorted by bci
  };
  Entry& lookup(jmethodID method);

  JavaVM* vm_;
  jvmtiEnv* jvmti_;
  Profile* profile_;
  std::unordered_map<jmethodID, Entry> cache_;
  int64_t errors_ = 0;
};

}  // namespace jvmkit::prof
