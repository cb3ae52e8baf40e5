// Times java.util.concurrent's parking: LockSupport.park* ends in the native method
// jdk.internal.misc.Unsafe.park(boolean, long), which is bound (JNI RegisterNatives) to a wrapper
// that calls the JVM's own function and, while locks are sampled, measures the call and reports
// waits of at least the threshold (lock_sampler.hpp) with the park's blocker as the lock
// (LockSupport.getBlocker: LockSupport.park(blocker) clears it only after Unsafe.park returns).
//
// The JVM's function is the "park" row of the table HotSpot registers Unsafe's natives from
// (jdk_internal_misc_Unsafe_methods, found in libjvm's ELF symbol table, as stock builds keep it);
// without it parking is not sampled and the report says why. Removing the hook binds the JVM's
// function again: after stop, park runs the JVM's code as before. HotSpot logs each of the two
// bindings as a warning line on the JVM's stdout ("Re-registering of platform native method:
// jdk.internal.misc.Unsafe.park(ZJ)V from code in a different classloader").
//
// Cost while sampling: one more call and two clock reads per park; for waits past the threshold, a
// JNI call for the blocker and a stack-trace request. After stop: none.
#pragma once

#include <jvmti.h>

#include "base/error.hpp"

namespace jvmkit::prof {

// On a thread attached to the JVM, in the live phase. An Error says why parking cannot be watched
// (Unsafe.park is then left as it was).
Error install_park_hook(jvmtiEnv* jvmti, JNIEnv* jni);
// Binds the JVM's own Unsafe.park again (nothing when the hook is not installed), on a thread
// attached to the JVM.
void remove_park_hook(JNIEnv* jni);

}  // namespace jvmkit::prof
