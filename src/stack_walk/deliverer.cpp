#include "stack_walk/deliverer.hpp"

#include <array>
#include <cstdint>

#include "base/clock.hpp"
#include "base/debug_check.hpp"
#include "stack_walk/counters.hpp"
#include "stack_walk/exact_frame_types.hpp"
#include "stack_walk/failure.hpp"

namespace jvmkit::walk {

namespace {

// A look-up miss rescans the live threads at most this often (misses are normal for JVM-internal
// threads that GetAllThreads does not list, e.g. compiler threads).
constexpr uint64_t kRescanIntervalNs = 20'000'000;

// The truncation flag of the trace whose callbacks run on this thread (the delivery thread),
// whether it was served later (a current-thread request taken by GetStackTrace at delivery), and
// its request's time (0 outside a trace).
thread_local bool t_trace_truncated = false;
thread_local bool t_trace_served_later = false;
thread_local int64_t t_trace_time_ns = 0;
thread_local int64_t t_trace_virtual_id = 0;
thread_local jthread t_trace_carrier = nullptr;

// Callbacks may leave an exception pending; it must not leak into the next request's JNI calls.
void clear_exception(JNIEnv* jni) {
  if (jni->ExceptionCheck()) jni->ExceptionClear();
}

// The methods whose declaring class the trace being delivered has already pinned. Stacks repeat
// methods (recursion, the same call chain seen twice), and each pin costs a JVMTI call and a local
// reference: a method seen again needs none, its class is held by the reference taken the first
// time, in the same local frame. Direct-mapped and exact: a slot holds one whole jmethodID, so a
// collision costs a second pin, never a missed one.
class PinnedMethods {
 public:
  bool contains(jmethodID method) const { return slots_[slot(method)] == method; }
  void add(jmethodID method) { slots_[slot(method)] = method; }

 private:
  static constexpr size_t kSlots = 64;
  static size_t slot(jmethodID method) { return (reinterpret_cast<uintptr_t>(method) >> 3) & (kSlots - 1); }
  std::array<jmethodID, kSlots> slots_{};
};

}  // namespace

jboolean current_trace_truncated() noexcept { return t_trace_truncated ? JNI_TRUE : JNI_FALSE; }
jboolean current_trace_served_later() noexcept { return t_trace_served_later ? JNI_TRUE : JNI_FALSE; }
jlong current_trace_time() noexcept { return static_cast<jlong>(t_trace_time_ns); }
jlong current_trace_virtual_id() noexcept { return static_cast<jlong>(t_trace_virtual_id); }
jthread current_trace_carrier() noexcept { return t_trace_carrier; }

void Deliverer::set_trace_virtual(int64_t id, jthread carrier) {
  t_trace_virtual_id = id;
  t_trace_carrier = carrier;
}

void Deliverer::prepare(JNIEnv* jni, jint max_frames) {
  JVMKIT_DCHECK(valid_stack_depth(max_frames));
  max_frames_ = max_frames;
  virtual_.prepare(jni, jvmti());
  // GetStackTrace is asked for one frame more than a trace holds (depth.hpp); types are given to
  // delivered frames only. A session with a smaller limit than the last gives the memory back.
  frame_buffer_.resize(static_cast<size_t>(max_frames) + 1);
  frame_buffer_.shrink_to_fit();
  type_buffer_.resize(static_cast<size_t>(max_frames));
  type_buffer_.shrink_to_fit();
  native_.reset();
}

void Deliverer::deliver(JNIEnv* jni, Request& request, uint64_t ticket) {
  outcomes_ = 0;
  begun_ = false;
  trace_thread_ = TraceThread{request.native.tid, request.jni != nullptr};
  if (request.native.requested) set_current_trace_thread(&trace_thread_);
  switch (request.kind) {
    case RequestKind::kCaptured:
      deliver_captured(jni, request, ticket);
      break;
    case RequestKind::kCurrentBiased: {
      jobject thread = resolve_thread(jni, request.jni, ticket);
      // A mounted virtual thread's stack is its own: the carrier's would show only what lies
      // below the continuation.
      jobject virtual_thread = thread != nullptr ? virtual_.virtual_of(jni, thread, request.java_thread_id) : nullptr;
      if (thread == nullptr) {
        fail(jni, request, nullptr, JVMKIT_FAILURE_THREAD_ENDED);
      } else if (virtual_thread != nullptr && !virtual_.waits_unmounted(jni, virtual_thread, true)) {
        // Its stack is asked of JVMTI only while it waits unmounted (virtual_threads.hpp).
        fail(jni, request, virtual_thread, JVMKIT_FAILURE_NOT_WALKABLE);
      } else {
        deliver_biased(jni, request, virtual_thread != nullptr ? virtual_thread : thread);
      }
      if (virtual_thread != nullptr) jni->DeleteLocalRef(virtual_thread);
      break;
    }
    case RequestKind::kOtherBiased:
      deliver_biased(jni, request, request.target);
      jni->DeleteGlobalRef(request.target);
      request.target = nullptr;
      break;
  }
  // Every accepted request ends in exactly one outcome (docs/design.md).
  JVMKIT_DCHECK(outcomes_ == 1);
  set_current_trace_thread(nullptr);
  clear_exception(jni);
}

void Deliverer::fail_disabled(JNIEnv* jni, Request& request) {
  report_failure(request.callbacks, nullptr, request.user_data, JVMKIT_FAILURE_DISABLED);
  if (request.target != nullptr && jni != nullptr) jni->DeleteGlobalRef(request.target);
  counters().count_failed(JVMKIT_FAILURE_DISABLED);
}

void Deliverer::begin_trace(const jvmtiStackTraceCallbacks& cb, jthread thread, bool biased, bool truncated,
                            void* user_data, int64_t time_ns, bool served_later) {
  JVMKIT_DCHECK(!begun_ && outcomes_ == 0 && !t_trace_truncated && !t_trace_served_later && t_trace_time_ns == 0);
  begun_ = true;
  t_trace_truncated = truncated;
  t_trace_served_later = served_later;
  t_trace_time_ns = time_ns;
  cb.beginStackTrace(thread, biased ? JNI_TRUE : JNI_FALSE, user_data);
}

void Deliverer::end_trace(const jvmtiStackTraceCallbacks& cb, jthread thread, void* user_data) {
  JVMKIT_DCHECK(begun_);
  cb.endStackTrace(thread, user_data);
  t_trace_truncated = false;
  t_trace_served_later = false;
  t_trace_time_ns = 0;
  set_trace_virtual(0, nullptr);
  outcomes_++;
}

void Deliverer::fail(JNIEnv* jni, Request& request, jobject thread_ref, jvmkitFailureReason reason) {
  // The outcome is decided before beginStackTrace: a failure never follows a begin.
  JVMKIT_DCHECK(!begun_);
  jthread thread = nullptr;
  if (jni->PushLocalFrame(4) == JNI_OK) {
    if (thread_ref != nullptr) thread = jni->NewLocalRef(thread_ref);
    report_failure(request.callbacks, thread, request.user_data, reason);
    jni->PopLocalFrame(nullptr);
  } else {
    clear_exception(jni);
    report_failure(request.callbacks, nullptr, request.user_data, reason);
  }
  counters().count_failed(reason);
  outcomes_++;
}

void Deliverer::deliver_captured(JNIEnv* jni, Request& request, uint64_t ticket) {
  bool rooted = false;
  // HotSpot's own threads without a JNIEnv (native requests only) have no Thread object to find.
  jobject thread_ref = request.jni != nullptr ? resolve_thread(jni, request.jni, ticket, &rooted) : nullptr;
  trace_thread_.java_thread = thread_ref != nullptr;
  if (NativeDelivery::native_only_trace(request)) {
    deliver_native_only(jni, request, thread_ref);
    return;
  }
  if (request.num_frames <= 0) {
    fail(jni, request, thread_ref, failure_from_asgct(request.num_frames));
    return;
  }
  if (thread_ref == nullptr) {
    fail(jni, request, nullptr, JVMKIT_FAILURE_THREAD_ENDED);
    return;
  }
  // The capture had room for one frame more than a trace holds (depth.hpp).
  JVMKIT_DCHECK(request.num_frames <= max_frames_ + 1 && request.physical_count <= kMaxPhysicalFrames);
  const DeliveredDepth depth = delivered_depth(request.num_frames, max_frames_);
  if (jni->PushLocalFrame(depth.count + 8) != JNI_OK) {
    clear_exception(jni);
    fail(jni, request, thread_ref, JVMKIT_FAILURE_OTHER);
    return;
  }
  // A mounted virtual thread's trace is its own: its thread, its frames (virtual_threads.hpp).
  const VirtualSplit virt = virtual_.split(jni, thread_ref, request.java_thread_id, request.frames, depth.count,
                                           depth.truncated, request.own_stack);
  const jint count = virt.frames;
  // Decide the outcome before beginStackTrace: pin every declaring class (once per method).
  jvmkitFailureReason reason = virt.in_entry ? JVMKIT_FAILURE_NO_JAVA_FRAMES : JVMKIT_FAILURE_REASON_COUNT;
  PinnedMethods pinned;
  for (jint i = 0; i < count && reason == JVMKIT_FAILURE_REASON_COUNT; i++) {
    jmethodID method = request.frames[i].method_id;
    jclass holder = nullptr;
    if (method == nullptr) {
      reason = JVMKIT_FAILURE_NOT_WALKABLE;
    } else if (pinned.contains(method)) {
      continue;
    } else if (jvmti()->GetMethodDeclaringClass(method, &holder) != JVMTI_ERROR_NONE || holder == nullptr) {
      reason = JVMKIT_FAILURE_CLASS_UNLOADED;
    } else {
      pinned.add(method);
    }
  }
  // Exact types from the physical frames the capture walked; the fallback for the rest. When every
  // frame was typed from the walk and the walk still saw Java frames below the last one, ASGCT's
  // trace was cut short (it stops early now and then, e.g. below VM-to-Java calls): a failure,
  // not a trace that looks complete. (A truncated trace is cut by design, at the depth limit.)
  int* types = type_buffer_.data();
  int physical_used = 0;
  const int exact =
      type_from_physical(request.frames, count, request.physical, request.physical_count, types, &physical_used);
  bool unproven = false;
  // A virtual thread's frames end at the continuation's entry: the walk reached it, so they are whole.
  if (virt.id != 0 && reason == JVMKIT_FAILURE_REASON_COUNT) {
    stats_.proven++;
  } else if (reason == JVMKIT_FAILURE_REASON_COUNT && !depth.truncated) {
    const Verdict verdict = check_complete(jni, request, count, exact, physical_used, ticket, rooted);
    reason = verdict.reason;
    unproven = verdict.unproven;
  }
  // The virtual thread's frames still frozen when the capture walked (virtual_threads.hpp).
  bool frozen_cut = false;
  const jint frozen =
      reason == JVMKIT_FAILURE_REASON_COUNT ? frozen_frames(jni, virt, request.frames, count, &frozen_cut) : 0;
  if (reason != JVMKIT_FAILURE_REASON_COUNT) {
    jni->PopLocalFrame(nullptr);
    fail(jni, request, thread_ref, reason);
    return;
  }
  stats_.typed_exact += exact;
  stats_.typed_fallback += count - exact;
  jthread thread = virt.thread != nullptr ? virt.thread : jni->NewLocalRef(thread_ref);
  const jvmtiStackTraceCallbacks& cb = request.callbacks;
  // The fallback type depends only on the method (and the native marker): a run of frames of one
  // method (recursion) asks for it once.
  jmethodID fallback_method = nullptr;
  bool fallback_native = false;
  jvmtiFrameType fallback_type = JVMTI_FRAME_INTERPRETER;
  // Biased where ASGCT could only place the interrupted PC by the next safepoint record, and for a
  // request without a ucontext: the JEP calls every such trace biased, though it is the stack of the
  // moment of the request (the thread stood at a call, where debug records are exact).
  // And where nothing proves the trace whole (see check_complete).
  // A virtual thread's trace that lost its frozen frames is not whole, completed or not.
  const bool biased = request.coarse_top || request.at_call || unproven || virt.frozen_missing;
  const bool truncated = depth.truncated || frozen_cut;
  if (virt.id != 0) {
    set_trace_virtual(virt.id, jni->NewLocalRef(thread_ref));
    counters().count_virtual(virt.thread != nullptr);
  }
  begin_trace(cb, thread, biased, truncated, request.user_data, request.time_ns);
  bool go_on = !request.native.requested || native_.emit_top(request, true);
  for (jint i = 0; go_on && i < count; i++) {
    if (i == virt.own && frozen > 0 && !(go_on = emit_frozen(cb, frozen, request.user_data))) break;
    // Native frames between this Java frame and the one above it (a JNI upcall's C frames).
    if (i > 0 && !(go_on = native_.emit_segments_before(request, i))) break;
    const hotspot::AsgctFrame& frame = request.frames[i];
    bool native_marker = frame.lineno == hotspot::kAsgctNativeBci;
    jvmtiFrameType type = static_cast<jvmtiFrameType>(types[i]);
    if (types[i] == kTypeUnknown) {
      if (frame.method_id != fallback_method || native_marker != fallback_native) {
        fallback_method = frame.method_id;
        fallback_native = native_marker;
        fallback_type = frame_types_.type_of(jvmti(), frame.method_id, native_marker);
      }
      type = fallback_type;
    }
    jlocation location = frame.lineno < 0 ? -1 : static_cast<jlocation>(frame.lineno);
    go_on = cb.stackFrame(type, frame.method_id, location, request.user_data) == JVMKIT_FRAME_CONTINUE;
  }
  if (go_on && virt.own == count && frozen > 0) go_on = emit_frozen(cb, frozen, request.user_data);
  // The thread's first native frames, below its first entry into Java (not in a truncated trace,
  // nor below a virtual thread's own frames).
  if (go_on && !depth.truncated && count == depth.count) native_.emit_segments_before(request, count);
  end_trace(cb, thread, request.user_data);
  jni->PopLocalFrame(nullptr);
  counters().count_delivered(biased, truncated);
}

jint Deliverer::frozen_frames(JNIEnv* jni, const VirtualSplit& virt, const hotspot::AsgctFrame* frames, jint count,
                              bool* cut) {
  *cut = false;
  if (!virt.frozen_missing || virt.thread == nullptr || count >= max_frames_) return 0;
  jint frozen = virtual_.frozen_frames(jni, virt.thread, frames[virt.own - 1].method_id, frame_buffer_.data(),
                                       max_frames_ - count, cut);
  // Pinned as every delivered frame; a class gone since (its frames cannot be reported) ends them.
  for (jint i = 0; i < frozen; i++) {
    jclass holder = nullptr;
    if (jvmti()->GetMethodDeclaringClass(frame_buffer_[i].method, &holder) != JVMTI_ERROR_NONE) {
      frozen = i;
      *cut = true;
    }
  }
  if (frozen > 0) counters().count_virtual_completed();
  return frozen;
}

bool Deliverer::emit_frozen(const jvmtiStackTraceCallbacks& cb, jint frozen, void* user_data) {
  for (jint i = 0; i < frozen; i++) {
    const jvmtiFrameInfo& frame = frame_buffer_[i];
    const jvmtiFrameType type = frame_types_.type_of(jvmti(), frame.method, false);
    if (cb.stackFrame(type, frame.method, frame.location, user_data) != JVMKIT_FRAME_CONTINUE) return false;
  }
  return true;
}

Deliverer::Verdict Deliverer::check_complete(JNIEnv* jni, const Request& request, jint count, int exact,
                                             int physical_used, uint64_t ticket, bool rooted) {
  switch (request.completeness) {
    case Completeness::kProven:
      stats_.proven++;
      ends_in_root(jni, request, count, ticket, rooted);  // learns the thread's root from it
      return Verdict{};
    case Completeness::kCutShort:
      stats_.cut_seen_by_proof++;
      return Verdict{JVMKIT_FAILURE_CUT_SHORT, false};
    case Completeness::kUnproven:
      stats_.unproven++;
      break;
    case Completeness::kUnchecked:
      stats_.unchecked++;
      break;
  }
  if (exact == count && physical_used < request.physical_count) {
    stats_.cut_seen_by_walk++;
    return Verdict{JVMKIT_FAILURE_CUT_SHORT, false};
  }
  // The thread's root decides where it is known: a trace that ends in it is whole, one that ends
  // elsewhere is cut. Elsewhere nothing proves the trace whole: it is delivered, biased.
  const bool whole = ends_in_root(jni, request, count, ticket, rooted);
  if (rooted && !whole) {
    stats_.cut_seen_by_root++;
    return Verdict{JVMKIT_FAILURE_CUT_SHORT, false};
  }
  if (!whole) stats_.biased_unproven++;
  return Verdict{JVMKIT_FAILURE_REASON_COUNT, !whole};
}

bool Deliverer::ends_in_root(JNIEnv* jni, const Request& request, jint count, uint64_t ticket, bool rooted) {
  const bool root = thread_roots_.is_root(jni, jvmti(), request.frames[count - 1].method_id);
  if (!rooted && root) threads_.mark_rooted(request.jni, ticket);
  return root;
}

void Deliverer::deliver_biased(JNIEnv* jni, Request& request, jobject thread_ref) {
  // One frame more than a trace holds, as in the capture (depth.hpp).
  jint captured = 0;
  jvmtiError err = jvmti()->GetStackTrace(thread_ref, 0, max_frames_ + 1, frame_buffer_.data(), &captured);
  if (err == JVMTI_ERROR_THREAD_NOT_ALIVE || err == JVMTI_ERROR_INVALID_THREAD) {
    fail(jni, request, thread_ref, JVMKIT_FAILURE_THREAD_ENDED);
    return;
  }
  if (err != JVMTI_ERROR_NONE) {
    fail(jni, request, thread_ref, JVMKIT_FAILURE_JVMTI_ERROR);
    return;
  }
  if (captured == 0) {
    fail(jni, request, thread_ref, JVMKIT_FAILURE_NO_JAVA_FRAMES);
    return;
  }
  const DeliveredDepth depth = delivered_depth(captured, max_frames_);
  const jint count = depth.count;
  if (jni->PushLocalFrame(count + 8) != JNI_OK) {
    clear_exception(jni);
    fail(jni, request, thread_ref, JVMKIT_FAILURE_OTHER);
    return;
  }
  // The thread has run on since GetStackTrace returned: pin the classes before reporting.
  for (jint i = 0; i < count; i++) {
    jclass holder = nullptr;
    if (jvmti()->GetMethodDeclaringClass(frame_buffer_[i].method, &holder) != JVMTI_ERROR_NONE) {
      jni->PopLocalFrame(nullptr);
      fail(jni, request, thread_ref, JVMKIT_FAILURE_CLASS_UNLOADED);
      return;
    }
  }
  jthread thread = jni->NewLocalRef(thread_ref);
  const jvmtiStackTraceCallbacks& cb = request.callbacks;
  begin_trace(cb, thread, true, depth.truncated, request.user_data, request.time_ns,
              request.kind == RequestKind::kCurrentBiased);
  // Native frames of another moment are unknown: the Java frames are the thread's at delivery.
  const bool go_on = !request.native.requested || native_.emit_marker(request, JVMKIT_NATIVE_END_NOT_CAPTURED);
  for (jint i = 0; go_on && i < count; i++) {
    const jvmtiFrameInfo& frame = frame_buffer_[i];
    jvmtiFrameType type = frame_types_.type_of(jvmti(), frame.method, false);
    if (cb.stackFrame(type, frame.method, frame.location, request.user_data) != JVMKIT_FRAME_CONTINUE) break;
  }
  end_trace(cb, thread, request.user_data);
  jni->PopLocalFrame(nullptr);
  counters().count_delivered(true, depth.truncated);
}

void Deliverer::deliver_native_only(JNIEnv* jni, Request& request, jobject thread_ref) {
  if (jni->PushLocalFrame(8) != JNI_OK) {
    clear_exception(jni);
    fail(jni, request, thread_ref, JVMKIT_FAILURE_OTHER);
    return;
  }
  jthread thread = thread_ref != nullptr ? jni->NewLocalRef(thread_ref) : nullptr;
  // biased describes the Java part: exact for a thread that has none (it reached its first frame).
  const bool biased = NativeDelivery::native_only_end(request) != JVMKIT_NATIVE_END_REASON_COUNT;
  begin_trace(request.callbacks, thread, biased, false, request.user_data, request.time_ns);
  native_.emit_top(request, false);
  end_trace(request.callbacks, thread, request.user_data);
  jni->PopLocalFrame(nullptr);
  counters().count_delivered(biased, false);
}

jobject Deliverer::resolve_thread(JNIEnv* jni, JNIEnv* key, uint64_t ticket, bool* rooted) {
  jobject thread = threads_.find(key, ticket, rooted);
  if (thread == nullptr && env_offset_.valid()) {
    const uint64_t now = static_cast<uint64_t>(monotonic_ns());
    if (now - last_scan_ns_ >= kRescanIntervalNs) {
      last_scan_ns_ = now;
      threads_.scan(jni, jvmti(), env_offset_, 0);
      thread = threads_.find(key, ticket, rooted);
    }
  }
  return thread;
}

}  // namespace jvmkit::walk
