// event=lock for the parks of virtual threads (JDK 21+).
//
// A virtual thread's LockSupport.park never reaches Unsafe.park (park_hook.hpp): VirtualThread.park
// and parkNanos yield the thread's continuation, so the thread unmounts from its carrier until it is
// unparked and mounted again, on any carrier. HotSpot tells JVMTI about both moments with the
// extension events com.sun.hotspot.events.VirtualThreadUnmount (posted by VirtualThread's
// yieldContinuation before the continuation yields: the thread's frames are still on the carrier's
// stack) and VirtualThreadMount (posted when yieldContinuation returns, still inside the park call).
//
//   unmount  only when VirtualThread.state says PARKING or TIMED_PARKING (not Thread.yield, a
//            blocked monitor enter, Object.wait or the thread's end): a park record, its id in the
//            profiler's JVMTI thread-local storage of the virtual thread, and a trace request for
//            the stack of that moment (RequestStackTrace, the current thread); the park's blocker
//            (LockSupport.getBlocker, set while the thread is in the park) is the lock
//   mount    the wait, from the unmount to now. A thread still PARKING could not yield (it is
//            pinned) and parks its carrier in Unsafe.park, which park_hook.hpp times: no wait here.
//            Past the threshold, a sample.
//
// Why the stack is taken at the unmount: a continuation is thawed lazily when it mounts again (only
// its top frames when the stack is large or has interpreted frames), and a walk at the mount would
// lose the frames still frozen. The trace usually comes before the wait ends, so its frames are
// kept, and the sample goes into the profile once both are known, inside a trace callback (a second
// request at the mount, whose own frames are not used, when the frames came first).
//
// Thread.sleep parks a virtual thread too (VirtualThread.sleepNanos): such a wait is left out, as a
// sleeping platform thread's is. Parks still under way at stop are not samples.
//
// Cost while locks are sampled: per park of a virtual thread two JVMTI callbacks, a map insert and
// erase under a mutex and a stack-trace request; nothing is enabled otherwise.
#pragma once

#include <jvmti.h>

#include "base/error.hpp"

namespace jvmkit::prof {

// Finds the extension events and VirtualThread's state, registers the callbacks and enables the
// events on JVMTI (the profiler's environment, which holds can_support_virtual_threads), in the
// live phase on a thread attached to the JVM. A JVM without virtual threads: nothing to do, no
// Error. An Error says why virtual threads' parks are not watched (nothing is left enabled).
Error start_virtual_thread_parks(jvmtiEnv* jvmti, JNIEnv* jni);
// Disables the events; parks under way are left out (their traces still come, and are dropped).
void stop_virtual_thread_parks(jvmtiEnv* jvmti);

// A virtual thread's contended monitor enter, from lock_sampler.cpp's MonitorContendedEnter: true
// when THREAD is a virtual thread and the wait is taken here, as a park is (its stack now, before
// JDK 24+ unmounts it to wait; its wait at MonitorContendedEntered, on whichever carrier).
bool virtual_monitor_enter(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread);
// MonitorContendedEntered of OBJECT: true when it ends a wait virtual_monitor_enter took.
bool virtual_monitor_entered(jvmtiEnv* jvmti, JNIEnv* jni, jobject object);

}  // namespace jvmkit::prof
