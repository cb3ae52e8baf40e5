// Virtual threads (JDK 21+) in traces of the current thread.
//
// A mounted virtual thread runs on its carrier's stack: the signal lands on the carrier, and
// AsyncGetCallTrace walks the virtual thread's frames, then jdk.internal.vm.Continuation.enterSpecial
// (where the continuation was entered), then the carrier's own frames (VirtualThread.runContinuation,
// ForkJoinPool...). What a trace says about such a sample:
//   - which Java thread ran: the capture reads the JavaThread's current Java thread id (HotSpot
//     switches it at mount and unmount, JDK 24+; see hotspot::JavaThreadLayout::java_thread_id).
//     An id that differs from the carrier's own Thread.tid names a mounted virtual thread;
//   - its jthread: found at delivery, by id, among the virtual threads alive (virtual_thread_table.hpp,
//     from VirtualThreadStart/End), else by asking HotSpot which virtual thread the carrier runs now
//     (the JVMTI extension function com.sun.hotspot.functions.GetVirtualThread): the sampled one
//     while it stays mounted (a virtual thread started before a live-phase Enable);
//   - its frames: those above enterSpecial; the carrier's below it only by opt-in
//     (JvmkitSetCarrierFrames). HotSpot thaws a continuation lazily: past a small size only its top
//     frame is copied back to the stack at each mount, with a return barrier below it that thaws
//     the next one when it returns. AsyncGetCallTrace goes from that barrier straight to
//     enterSpecial; the capture reads the frames still frozen from the heap where it safely can
//     (signal/x64/frozen_frames.hpp) and puts them in between. Where it cannot, the frame above
//     enterSpecial is not Continuation.enter, the continuation's first: such a trace is biased
//     (not whole). The delivery completes it from the virtual thread's stack at delivery
//     (JVMTI GetStackTrace, which walks the frozen frames: the frames below the walk's last one,
//     where that method is still on the stack) only when the thread then waits, or is on its way
//     to wait (parked, blocked, in Object.wait): JVMTI GetStackTrace of a virtual thread that runs
//     and yields meanwhile crashed HotSpot 25 (vframeStream in JvmtiEnvBase::get_vthread_jvf,
//     about once in 70,000 calls on threads that yield without pause).
// A virtual thread started before a live-phase Enable that unmounted before its sample's delivery,
// and was not met mounted before, cannot be named: the trace keeps its own frames and is reported for the carrier
// (counted, see JvmkitGetStackWalkCounters), and JvmkitCurrentVirtualThreadId still gives its id.
//
// Not signal context: the delivery thread only.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstdint>

#include "hotspot/asgct.hpp"
#include "stack_walk/virtual_thread_table.hpp"

namespace jvmkit::walk {

// Whether traces of mounted virtual threads go on below enterSpecial into the carrier's frames
// (JvmkitSetCarrierFrames; off by default). Any thread may set it; deliveries read it.
void set_carrier_frames(bool include) noexcept;
bool carrier_frames() noexcept;

// What a captured trace holds of a virtual thread.
struct VirtualSplit {
  jobject thread = nullptr;     // the virtual thread (a local ref the caller deletes), or nullptr
  int64_t id = 0;               // its Thread.threadId(), or 0: the trace is the carrier's own
  jint frames = 0;              // the frames to deliver (all of them, or those above enterSpecial)
  jint own = 0;                 // the virtual thread's own frames among them (above enterSpecial)
  bool frozen_missing = false;  // the walk went from a return barrier to enterSpecial (see above)
  // The sample fell into the continuation's entry itself (enterSpecial the top frame, while the
  // virtual thread is being mounted or its frames thawed): the virtual thread had no Java frame of
  // its own yet. Such a request fails as no_java_frames.
  bool in_entry = false;
};

class VirtualThreads {
 public:
  explicit VirtualThreads(VirtualThreadTable& table) : table_(table) {}

  // Learns enterSpecial's jmethodID and the extension function, with JVMTI (jvmkit's own
  // environment, which holds can_support_virtual_threads where the JVM has it). Idempotent per
  // session; on JDK 17 (no continuations) every trace stays the carrier's.
  void prepare(JNIEnv* jni, jvmtiEnv* jvmti);
  // Drops the table and the references (the delivery thread, as it exits).
  void reset(JNIEnv* jni);

  // The virtual thread part of a trace of CARRIER whose capture read JAVA_THREAD_ID (0: unknown)
  // and took COUNT frames (TRUNCATED: the walk stopped at the depth limit, so enterSpecial may lie
  // below).
  // OWN_STACK: the frames are the virtual thread's own, whole (taken with JVMTI, no entry frame).
  VirtualSplit split(JNIEnv* jni, jobject carrier, int64_t java_thread_id, const hotspot::AsgctFrame* frames,
                     jint count, bool truncated, bool own_stack = false);

  // The virtual thread with ID (a local ref), or nullptr; CARRIER is the thread it was sampled on
  // (asked when the cache does not know ID).
  jobject find(JNIEnv* jni, jobject carrier, int64_t id);
  // The virtual thread that CARRIER ran when the capture read JAVA_THREAD_ID (a local ref), or
  // nullptr when that was the carrier itself (or is unknown, or cannot be found).
  jobject virtual_of(JNIEnv* jni, jobject carrier, int64_t java_thread_id);
  // The frames of VIRTUAL_THREAD below BOTTOM (the last frame a walk found above a return barrier),
  // from its stack now, moved to the start of BUFFER (capacity ROOM + 1): their count, at most
  // ROOM; *CUT when more were left out. 0 when BOTTOM's method is no longer on its stack.
  jint frozen_frames(JNIEnv* jni, jobject virtual_thread, jmethodID bottom, jvmtiFrameInfo* buffer, jint room,
                     bool* cut);
  // Whether VIRTUAL_THREAD waits unmounted now (VirtualThread.state PARKED, TIMED_PARKED, BLOCKED,
  // WAIT or TIMED_WAIT), or with GOING also is on its way there (PARKING, BLOCKING, WAITING...: a
  // request it made as it began to wait, delivered at once): the states in which jvmkit asks JVMTI
  // for its stack (see above). Never while it runs, yields or mounts.
  bool waits_unmounted(JNIEnv* jni, jobject virtual_thread, bool going = false);
  // Whether THREAD is a virtual thread (java.lang.VirtualThread's instance); false on JDK 17.
  bool is_virtual(JNIEnv* jni, jobject thread) const;

 private:
  using GetVirtualThreadFn = jvmtiError(JNICALL*)(jvmtiEnv*, ...);
  jlong thread_id(JNIEnv* jni, jobject thread);
  void learn_states(JNIEnv* jni);

  VirtualThreadTable& table_;
  jvmtiEnv* jvmti_ = nullptr;
  jmethodID enter_special_ = nullptr;
  jmethodID continuation_enter_ = nullptr;         // Continuation.enter, a continuation's first frame
  bool states_learnt_ = false;                     // learn_states has run (this session)
  jfieldID state_ = nullptr;                       // VirtualThread.state
  jint suspended_bit_ = 0;                         // VirtualThread.SUSPENDED, or'ed into the state
  jint waiting_states_[5] = {-1, -1, -1, -1, -1};  // the states of waits_unmounted, -1 where absent
  jint going_states_[5] = {-1, -1, -1, -1, -1};    // the states on the way to them
  jfieldID tid_ = nullptr;
  GetVirtualThreadFn get_virtual_thread_ = nullptr;
  // Global ref to java.lang.VirtualThread, or nullptr. Loaded, not initialised: its static
  // initialiser makes the default scheduler (a ForkJoinPool and lambdas, ~15 ms of the delivery
  // thread's CPU), which a program without virtual threads never needs.
  jclass virtual_class_ = nullptr;
};

}  // namespace jvmkit::walk
