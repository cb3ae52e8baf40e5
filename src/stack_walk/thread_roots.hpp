// Which methods can be the bottom frame of a thread started from Java, so that a trace that ends
// anywhere else is known to be cut short.
//
// AsyncGetCallTrace stops early now and then (an unwalkable sender somewhere down the stack) and
// still reports success with the frames it has. Such a trace looks complete. The capture's own
// physical walk sees that within its reach (64 frames from the top); below that, the bottom frame
// tells. A thread started with Thread.start runs Java from HotSpot's thread entry, which calls the
// thread object's run() (Thread.run or an override), and on its way out Thread.exit, or
// Thread.dispatchUncaughtException after an uncaught exception. A complete trace of such a thread
// ends in one of those. (A virtual thread's frames on its carrier, if a JDK's AsyncGetCallTrace
// stops at the continuation's entry, end in jdk.internal.vm.Continuation: also accepted.)
//
// Threads attached through JNI (the main thread, native threads calling Java) have no such
// bottom: the delivery side checks only threads that were seen with a root (ThreadRegistry's
// "rooted" mark).
//
// Not signal context: the delivery thread only (JNI/JVMTI calls, a cache it owns).
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <unordered_map>

namespace jvmkit::walk {

class ThreadRoots {
 public:
  // Whether METHOD can be a thread's bottom frame (see above). METHOD's class must be pinned by
  // the caller. Cached per method; JVMTI errors answer "yes", so that a doubt never fails a trace.
  bool is_root(JNIEnv* jni, jvmtiEnv* jvmti, jmethodID method);
  // Forgets the cache and the reference to java.lang.Thread (Disable).
  void reset(JNIEnv* jni);

 private:
  bool classify(JNIEnv* jni, jvmtiEnv* jvmti, jmethodID method);

  static constexpr size_t kMaxCached = 4096;
  std::unordered_map<jmethodID, bool> cache_;
  jclass thread_class_ = nullptr;  // global ref
};

}  // namespace jvmkit::walk
