// The blocker a thread parks for (LockSupport.park(blocker)): the lock of a lock sample.
//
// Read as the field java.lang.Thread.parkBlocker, which LockSupport.getBlocker returns (JDK 17 to
// 25), so that no Java code runs: the readers are Unsafe.park's wrapper (park_hook.hpp) and a JVMTI
// callback in the middle of a virtual thread's unmount (virtual_thread_parks.hpp), where a call
// into Java may fail.
//
// Normal context (JNI).
#pragma once

#include <jni.h>
#include <jvmti.h>

#include "base/error.hpp"

namespace jvmkit::prof {

// Looks the field up (once per process; java.lang.Thread is never unloaded).
Error learn_park_blocker(JNIEnv* jni);
// The class of THREAD's park blocker, a local reference, or nullptr when it has none (or the
// field is not known).
jclass park_blocker_class(JNIEnv* jni, jthread thread);

}  // namespace jvmkit::prof
