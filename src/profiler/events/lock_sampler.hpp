// event=lock: threads that waited at least a threshold for a lock, with the stack where they
// waited, the class of the lock as the leaf frame, and the time waited (ns) as the weight.
//   monitors (synchronized)  JVMTI MonitorContendedEnter / MonitorContendedEntered: the enter time
//                            is kept per Java thread (the profiler's JVMTI thread-local storage,
//                            a virtual thread's own: since JDK 24 it may unmount while it waits and
//                            enter on another carrier) and the wait measured at Entered
//   java.util.concurrent     LockSupport.park -> the native jdk.internal.misc.Unsafe.park, which
//                            park_hook.hpp replaces with a timing wrapper; the lock is the park's
//                            blocker (LockSupport.getBlocker)
//   virtual threads' parks   VirtualThread.park yields instead: virtual_thread_parks.hpp times it
//                            from the thread's unmount to its next mount (JDK 21+)
// The profiler's JVMTI thread-local storage of a thread holds what it waits for: an odd value a
// monitor's enter time ((ns << 1) | 1), an even one a virtual thread's park.
#pragma once

#include <jvmti.h>

#include <cstdint>
#include <string>

#include "base/error.hpp"

namespace jvmkit::prof {

// Adds the capabilities and enables the monitor events on JVMTI (the profiler's environment) and
// intercepts Unsafe.park (through JNI) and, JDK 21+, virtual threads' parks, on a thread attached to
// the JVM, in the live phase. An Error: monitors cannot be watched (nothing is left enabled).
// *PARK_NOTE says why parking is not watched when only that part failed ("" otherwise).
Error start_lock_sampling(jvmtiEnv* jvmti, JNIEnv* jni, int64_t threshold_ns, std::string* park_note);
// Disables the monitor events and restores Unsafe.park's own native code.
void stop_lock_sampling(jvmtiEnv* jvmti, JNIEnv* jni);

// Whether lock waits are being sampled now, and their threshold: for the park hook.
bool lock_sampling_armed();
int64_t lock_threshold_ns();
// A wait of WAITED_NS on a lock of class LOCK_CLASS ended on this thread: sampled when it is at
// least the threshold. PARK: the wait was a park (LockSupport.park), not a monitor's.
void lock_waited(jvmtiEnv* jvmti, int64_t waited_ns, jclass lock_class, bool park);

// The callbacks of the profiler's environment.
void JNICALL on_monitor_contended_enter(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, jobject object);
void JNICALL on_monitor_contended_entered(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, jobject object);

}  // namespace jvmkit::prof
