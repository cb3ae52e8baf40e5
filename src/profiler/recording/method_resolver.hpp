// MethodResolver: jmethodID -> Profile method and source line, resolved inside the stack-trace
// callbacks, while the stack-walk library keeps the declaring class pinned (stack_walk.h: a
// jmethodID is valid until endStackTrace returns). Names are resolved once per jmethodID and
// cached; the cache never dereferences an id outside a callback.
//
// Cache caveat: a jmethodID is used as the key. HotSpot does not hand out a jmethodID of an
// unloaded class to another method on JDK 25 (ids are never reused); on JDK 17/21 a slot can be
// reused only after its method was freed by class redefinition, which profiled programs rarely do.
//
// Bounded: the cache holds the methods of one Profile, at most as many as that profile's method
// table may (ProfileLimits::max_methods), since past that every method is "[overflow]" anyway. A
// fresh profile (a new window of continuous profiling) comes with reset(), which drops the cache:
// its method indices belong to the old profile, and a program that keeps generating classes would
// otherwise keep growing it.
#pragma once

#include <jvmti.h>

#include <string>
#include <vector>

#include "base/flat_map.hpp"
#include "profiler/recording/profile.hpp"

namespace jvmkit::prof {

// "Ljava/lang/String;" -> "java.lang.String"; "[I" -> "int[]".
std::string class_name_from_signature(const char* signature);

class MethodResolver {
 public:
  MethodResolver(JavaVM* vm, jvmtiEnv* jvmti, Profile* profile) : vm_(vm), jvmti_(jvmti), profile_(profile) {}

  // Resolves into PROFILE from now on, with an empty cache. Call it whenever the profile it fills
  // is replaced, also when a new profile is assigned to the same object.
  void reset(Profile* profile);

  // The profile method of METHOD and the source line of BCI in it (0 when unknown). Only valid
  // while METHOD is (inside a stack-trace callback). A method not cached while the cache or the
  // profile's method table is full is the profile's "[overflow]" method, found without JVMTI.
  void resolve(jmethodID method, jlocation bci, uint32_t* method_index, int32_t* line);

  size_t resolved() const { return entries_.size(); }  // methods cached for the current profile
  // Since construction (reset keeps them): failed JVMTI lookups, and frames resolved to
  // "[overflow]" without a lookup because the cache or the method table was full.
  int64_t errors() const { return errors_; }
  int64_t overflowed() const { return overflowed_; }

 private:
  struct Entry {
    uint32_t method;
    std::vector<std::pair<jlocation, jint>> lines;  // (start bci, line), sorted by bci
  };
  const Entry* lookup(jmethodID method);

  JavaVM* vm_;
  jvmtiEnv* jvmti_;
  Profile* profile_;
  // The cache: each method's entry, found by its index (a flat map: a look-up per Java frame of
  // every trace, where a node-based map's was a cache miss or two).
  std::vector<Entry> entries_;
  FlatMap<jmethodID, uint32_t, std::hash<jmethodID>> cache_;
  int64_t errors_ = 0;
  int64_t overflowed_ = 0;
};

}  // namespace jvmkit::prof
