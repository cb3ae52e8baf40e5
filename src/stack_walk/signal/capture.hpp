// The state the capture side reads, and the capture itself.
//
// SIGNAL CONTEXT: everything declared here may run inside a signal handler that interrupted
// arbitrary code (including HotSpot holding its own locks, or malloc). See capture.cpp.
#pragma once

#include <jni.h>
#include <jvmkit/stack_walk.h>
#include <jvmti.h>

#include <atomic>

#include "base/signal_safe.hpp"
#include "native/native_snapshot.hpp"
#include "stack_walk/code_map.hpp"
#include "stack_walk/request_pool.hpp"

namespace jvmkit::walk {

// What Enable publishes for the capture side. Enable fills it in before opening the gate;
// Disable closes the gate and waits for callers inside it to leave before tearing anything down.
struct CaptureState {
  std::atomic<bool> open{false};                      // requests are accepted
  std::atomic<int> inside{0};                         // RequestStackTrace calls currently past the gate
  std::atomic<RequestPool::Producer*> pool{nullptr};  // the requests' side of the pool
  std::atomic<JavaVM*> vm{nullptr};
  std::atomic<hotspot::AsgctFunction> asgct{nullptr};
  std::atomic<const CodeSnapshotCell*> code_map{
      nullptr};  // the code map's snapshots: recovery of samples ASGCT cannot place
  // The unwind tables of a session with native frames (JvmkitSetNativeFrames), else nullptr.
  std::atomic<const native::NativeSnapshotCell*> native_tables{nullptr};
  // Where HotSpot keeps its code heaps' bounds (CodeCache::_low_bound, _high_bound, from vmStructs;
  // set once the code cache exists), or nullptr.
  std::atomic<const uintptr_t*> code_heap_low{nullptr};
  std::atomic<const uintptr_t*> code_heap_high{nullptr};
  // Continuation.enterSpecial and Continuation.enter (JDK 21+, set once by the delivery thread), or
  // nullptr: where a mounted virtual thread's frames still frozen in the heap belong in its trace
  // (signal/x64/frozen_frames.hpp).
  std::atomic<jmethodID> enter_special{nullptr};
  std::atomic<jmethodID> continuation_enter{nullptr};
};

JVMKIT_SIGNAL_SAFE CaptureState& capture_state() noexcept;

// Entering the gate: returns false (and does not enter) when requests are not accepted.
// Dekker-style with Disable: both sides use seq_cst, so either the caller sees the gate closed, or
// Disable sees the caller inside and waits for it.
JVMKIT_SIGNAL_SAFE inline bool enter_gate(CaptureState& s) noexcept {
  s.inside.fetch_add(1, std::memory_order_seq_cst);
  if (!s.open.load(std::memory_order_seq_cst)) {
    s.inside.fetch_sub(1, std::memory_order_seq_cst);
    return false;
  }
  return true;
}
JVMKIT_SIGNAL_SAFE inline void leave_gate(CaptureState& s) noexcept {
  s.inside.fetch_sub(1, std::memory_order_seq_cst);
}

// The current thread's JNIEnv, or nullptr when it is not a Java thread. Reads HotSpot's
// thread-local (JavaVM::GetEnv with a JNI version does nothing else). In signal context only on a
// thread HotSpot has attached (hotspot::current_thread_attachment() == kAttached): on a thread it
// is still starting, that first thread-local read mallocs.
JVMKIT_SIGNAL_SAFE JNIEnv* current_jni(JavaVM* vm) noexcept;

// Requests a trace of the current thread (thread == NULL in the API).
// With ucontext: AsyncGetCallTrace runs here, from the interrupted registers, into the slot.
// Without: the same from the thread's last Java frame, the stack at this call (at_call.hpp); only
// when the thread runs Java code or that frame is not walkable does the slot record just who
// asked, for the delivery thread to serve with GetStackTrace.
// With NATIVE (JvmkitRequestStackTraceNative): also the native part (signal/native_capture.hpp),
// and HotSpot's own threads without a JNIEnv are accepted (their trace is native only).
struct NativeAsk;
JVMKIT_SIGNAL_SAFE jvmtiError request_current_thread(void* ucontext, const jvmtiStackTraceCallbacks& callbacks,
                                                     void* user_data, const NativeAsk* native = nullptr) noexcept;

}  // namespace jvmkit::walk
