// One published request -> its one outcome: a trace (beginStackTrace, stackFrame..., endStackTrace)
// or a failure, never both, never neither. Runs on the delivery thread (a JVMTI agent thread),
// never in signal context; fail_disabled also on the thread that disables before the delivery
// thread ever ran.
//
// The outcome is decided before beginStackTrace: every frame's declaring class is pinned first
// (a local reference, inside a local frame that lives until endStackTrace returns), so a method
// whose class was unloaded between capture and delivery turns the request into a failure, and
// every jmethodID handed to stackFrame stays valid until endStackTrace returns.
//
// A trace holds at most the session's max_frames frames; the walks took one more, so a trace that
// lost frames at the root end is told apart exactly (depth.hpp) and flagged while its callbacks run
// (current_trace_truncated).
#pragma once

#include <jni.h>
#include <jvmkit/stack_walk.h>
#include <jvmti.h>

#include <cstdint>
#include <vector>

#include "stack_walk/depth.hpp"
#include "stack_walk/fallback_frame_types.hpp"
#include "stack_walk/native/native_delivery.hpp"
#include "stack_walk/own_env.hpp"
#include "stack_walk/request_pool.hpp"
#include "stack_walk/thread_registry.hpp"
#include "stack_walk/thread_roots.hpp"
#include "stack_walk/virtual_threads.hpp"

namespace jvmkit::walk {

class Deliverer {
 public:
  Deliverer(const OwnEnv& env, ThreadRegistry& threads, const EnvOffset& env_offset, FrameTypes& frame_types,
            VirtualThreadTable& virtual_threads)
      : env_(env), threads_(threads), env_offset_(env_offset), frame_types_(frame_types), virtual_(virtual_threads) {}

  // On the delivery thread, before its first request: traces of this session hold up to
  // MAX_FRAMES frames (the pool's max_frames()); learns what virtual threads need (JNI: its env).
  void prepare(JNIEnv* jni, jint max_frames);
  // Gives REQUEST (published with TICKET) its one outcome.
  void deliver(JNIEnv* jni, Request& request, uint64_t ticket);
  // Gives REQUEST the failure "disabled", without a thread: Disable before the delivery thread
  // ever ran. JNI may be nullptr (the disabling thread is not attached).
  void fail_disabled(JNIEnv* jni, Request& request);
  // Forgets what it learnt of the VM's classes (on the delivery thread, as it exits).
  void reset(JNIEnv* jni) {
    thread_roots_.reset(jni);
    virtual_.reset(jni);
  }

  // How frames were typed and why traces were cut short, since the process started (printed at
  // Disable with JVMKIT_WALK_DEBUG).
  struct Stats {
    int64_t typed_exact = 0;        // frames typed from the physical walk
    int64_t typed_fallback = 0;     // ... and by the fallback
    int64_t cut_seen_by_walk = 0;   // traces failed cut_short by the physical walk
    int64_t cut_seen_by_root = 0;   // ... by their bottom frame
    int64_t cut_seen_by_proof = 0;  // ... by the capture's completeness proof
    int64_t proven = 0;             // traces the capture proved complete
    int64_t unproven = 0;           // traces whose proof could not reach the thread's first entry
    int64_t unchecked = 0;          // traces the capture could not walk at all
    int64_t biased_unproven = 0;    // traces delivered biased: neither proof nor root says they are whole
  };
  const Stats& stats() const { return stats_; }

 private:
  jvmtiEnv* jvmti() const { return env_.get(); }
  void deliver_captured(JNIEnv* jni, Request& request, uint64_t ticket);
  // A native request whose trace is its native part alone (NativeDelivery::native_only_trace).
  void deliver_native_only(JNIEnv* jni, Request& request, jobject thread_ref);
  void deliver_biased(JNIEnv* jni, Request& request, jobject thread_ref);
  // A virtual thread's frames the capture could not walk (still frozen), from its stack now, into
  // frame_buffer_ with their classes pinned: their count, at most what the depth limit leaves after
  // COUNT frames; *CUT when some were left out (virtual_threads.hpp).
  jint frozen_frames(JNIEnv* jni, const VirtualSplit& virt, const hotspot::AsgctFrame* frames, jint count, bool* cut);
  // Reports the FROZEN frames of frame_buffer_; false when the callback asked to stop.
  bool emit_frozen(const jvmtiStackTraceCallbacks& cb, jint frozen, void* user_data);
  void fail(JNIEnv* jni, Request& request, jobject thread_ref, jvmkitFailureReason reason);
  // The thread of a captured request; ROOTED (optional) receives its ThreadRegistry "rooted" mark.
  jobject resolve_thread(JNIEnv* jni, JNIEnv* key, uint64_t ticket, bool* rooted = nullptr);
  // Whether a trace (its first COUNT frames) ends where a thread started from Java begins (see
  // thread_roots.hpp); marks the thread rooted when it does and was not (ROOTED).
  bool ends_in_root(JNIEnv* jni, const Request& request, jint count, uint64_t ticket, bool rooted);
  // What becomes of a complete-looking trace (its first COUNT frames, not truncated): the failure
  // cut_short, or a trace (REASON == JVMKIT_FAILURE_REASON_COUNT), biased when nothing proves it
  // whole (UNPROVEN). The capture's proof decides (completeness.hpp); where it could not, the
  // physical walk (EXACT of the frames typed from it, using PHYSICAL_USED of its frames) and the
  // thread's root (see thread_roots.hpp) do.
  struct Verdict {
    jvmkitFailureReason reason = JVMKIT_FAILURE_REASON_COUNT;
    bool unproven = false;
  };
  Verdict check_complete(JNIEnv* jni, const Request& request, jint count, int exact, int physical_used, uint64_t ticket,
                         bool rooted);
  // What the debug checks of "exactly one outcome" count for the request being delivered; from
  // begin to end, current_trace_truncated() on this thread says TRUNCATED,
  // current_trace_served_later() SERVED_LATER and current_trace_time() TIME_NS.
  void begin_trace(const jvmtiStackTraceCallbacks& cb, jthread thread, bool biased, bool truncated, void* user_data,
                   int64_t time_ns, bool served_later = false);
  // From begin to end of the trace being delivered: JvmkitCurrentVirtualThreadId's and
  // JvmkitCurrentCarrierThread's answers.
  static void set_trace_virtual(int64_t id, jthread carrier);
  void end_trace(const jvmtiStackTraceCallbacks& cb, jthread thread, void* user_data);

  const OwnEnv& env_;
  ThreadRegistry& threads_;
  const EnvOffset& env_offset_;
  FrameTypes& frame_types_;
  ThreadRoots thread_roots_;
  VirtualThreads virtual_;
  uint64_t last_scan_ns_ = 0;
  jint max_frames_ = kDefaultStackDepth;
  std::vector<jvmtiFrameInfo> frame_buffer_;  // max_frames_ + 1: GetStackTrace's frames
  std::vector<int> type_buffer_;
  Stats stats_;
  NativeDelivery native_;
  TraceThread trace_thread_;  // JvmkitCurrentTraceThread's answer for the request being delivered
  // The request being delivered: outcomes given so far, and whether its trace has begun.
  int outcomes_ = 0;
  bool begun_ = false;
};

// Inside the callbacks of a trace (beginStackTrace to endStackTrace) on the thread that delivers
// it: whether that trace was truncated at the depth limit. JNI_FALSE anywhere else.
jboolean current_trace_truncated() noexcept;
// JvmkitCurrentTraceServedLater: inside the callbacks of a trace, whether it is a current-thread
// request's stack taken at delivery rather than at the request.
jboolean current_trace_served_later() noexcept;
// JvmkitCurrentTraceTime: inside the callbacks of a trace, the CLOCK_MONOTONIC ns of its request
// (Request::time_ns); 0 anywhere else.
jlong current_trace_time() noexcept;
// JvmkitCurrentVirtualThreadId / JvmkitCurrentCarrierThread: inside the callbacks of a trace of a
// mounted virtual thread, its Thread.threadId() and the carrier it ran on; 0 and nullptr elsewhere.
jlong current_trace_virtual_id() noexcept;
jthread current_trace_carrier() noexcept;

}  // namespace jvmkit::walk
