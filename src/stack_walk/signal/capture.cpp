// SIGNAL CONTEXT. This file holds the only code of the stack walker that runs inside a signal
// handler. It may call: atomics, pthread_getspecific, HotSpot's AsyncGetCallTrace, JavaVM::GetEnv
// (a thread-local read, only once HotSpot's pthread key says the thread is attached), three loads
// from the current thread's JavaThread (its stack bounds and its current Java thread id, through
// the layout checked at Enable), the walk of a mounted virtual thread's frozen frames in the heap
// (signal/x64/frozen_frames.hpp),
// and the futex wake-up of RequestPool::publish. It may NOT call: malloc/free/new, any
// lock, JNI or JVMTI functions, stdio, or anything else that is not async-signal-safe. It does
// not touch errno-visible state beyond the wake-up syscall. Time is bounded by ASGCT's walk of at
// most the pool's capture depth: the session's depth limit plus one (depth.hpp), 2,049 frames by
// default, 65,537 at most.
//
// The test build (JVMKIT_WALK_TEST_HOOKS) brackets the capture with jvmkit_walk_capture_hook so
// that an LD_PRELOAD trap can abort on any allocation or lock taken inside it
// (tests/stack_walk/signal_safety_trap.cpp).
#include "stack_walk/signal/capture.hpp"

#include <ucontext.h>

#include <cerrno>

#include "base/signal_safe.hpp"
#include "hotspot/java_thread.hpp"
#include "stack_walk/counters.hpp"
#include "stack_walk/signal/native_capture.hpp"
#include "stack_walk/signal/x64/at_call.hpp"
#include "stack_walk/signal/x64/frame.hpp"
#include "stack_walk/signal/x64/frozen_frames.hpp"
#include "stack_walk/signal/x64/recovery.hpp"

#ifdef JVMKIT_WALK_TEST_HOOKS
extern "C" void jvmkit_walk_capture_hook(int entering);
#define JVMKIT_CAPTURE_HOOK(entering) jvmkit_walk_capture_hook(entering)
#else
#define JVMKIT_CAPTURE_HOOK(entering) ((void)0)
#endif

namespace jvmkit::walk {

CaptureState& capture_state() noexcept {
  static constinit CaptureState state;
  return state;
}

JNIEnv* current_jni(JavaVM* vm) noexcept {
  JNIEnv* jni = nullptr;
  if (vm == nullptr || vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) != JNI_OK) return nullptr;
  return jni;
}

namespace {

// Keeps errno as the interrupted code left it: the wake-up syscall may change it.
class ErrnoGuard {
 public:
  JVMKIT_SIGNAL_SAFE ErrnoGuard() noexcept : saved_(errno) {}
  JVMKIT_SIGNAL_SAFE ~ErrnoGuard() { errno = saved_; }

 private:
  int saved_;
};

// The top of the current thread's stack if SP lies on it, else 0 (unknown: the stack is not read).
JVMKIT_SIGNAL_SAFE uintptr_t stack_top_for(JNIEnv* jni, uintptr_t sp) noexcept {
  const hotspot::JavaThreadLayout* layout = hotspot::known_java_thread_layout();
  if (layout == nullptr) return 0;
  const hotspot::StackRange stack = layout->stack_of(jni);
  return stack.contains(sp) ? stack.hi : 0;
}

// A request without a ucontext: the stack as it is now, from the thread's last Java frame
// (at_call.hpp); when that cannot be had here, the delivery thread serves it later.
JVMKIT_SIGNAL_SAFE void capture_without_context(const CaptureState& state, JNIEnv* jni, jint depth,
                                                Request* request) noexcept {
  const uintptr_t here = reinterpret_cast<uintptr_t>(&depth);
  const AtCallCapture captured =
      capture_at_call(state.asgct.load(std::memory_order_relaxed), jni, request->frames, depth,
                      state.code_map.load(std::memory_order_acquire), stack_top_for(jni, here), request->physical);
  if (captured.later) {
    request->kind = RequestKind::kCurrentBiased;
    counters().count_served_later();
    return;
  }
  request->at_call = true;
  counters().count_at_call();
  request->num_frames = captured.result;
  request->physical_count = captured.physical_count;
  request->completeness = captured.completeness;
  JVMKIT_DCHECK(request->num_frames <= depth);
  JVMKIT_DCHECK(request->physical_count >= 0 && request->physical_count <= kMaxPhysicalFrames);
}

JVMKIT_SIGNAL_SAFE jvmtiError reject(jvmkitRejectReason reason, jvmtiError error) noexcept {
  counters().count_rejected(reason);
  return error;
}

}  // namespace

namespace {

// A mounted virtual thread's frames still frozen in the heap, put into its trace
// (signal/x64/frozen_frames.hpp).
JVMKIT_SIGNAL_SAFE void add_frozen_frames(const CaptureState& state, JNIEnv* jni, const CodeSnapshotCell& code_map,
                                          jint depth, Request* request) noexcept {
  const ContinuationMethods methods{state.enter_special.load(std::memory_order_acquire),
                                    state.continuation_enter.load(std::memory_order_acquire)};
  if (methods.enter_special == nullptr || request->num_frames <= 0) return;
  // One load settles the platform threads' samples: no continuation mounted, nothing to read.
  const hotspot::JavaThreadLayout* threads = hotspot::known_java_thread_layout();
  if (threads == nullptr || !threads->runs_continuation(jni)) return;
  CodeSnapshotCell::Reader reader(code_map);
  if (const CodeSnapshot* code = reader.get()) {
    if (insert_frozen_frames(*code, methods, jni, request->pc, request->frames, &request->num_frames, depth) > 0) {
      counters().count_virtual_frozen();
    }
  }
}

// The Java part of a current-thread request (JNI: the thread's JNIEnv).
JVMKIT_SIGNAL_SAFE void capture_java(const CaptureState& state, RequestPool::Producer* pool, JNIEnv* jni,
                                     void* ucontext, Request* request, EntriesOut* entries) noexcept {
  if (const hotspot::JavaThreadLayout* layout = hotspot::known_java_thread_layout()) {
    request->java_thread_id = layout->current_java_thread_id(jni);
  }
  if (ucontext == nullptr) {
    capture_without_context(state, jni, pool->capture_depth(), request);
    return;
  }
  const Regs at = regs_of(static_cast<const ucontext_t*>(ucontext));
  request->pc = at.pc;
  request->sp = at.sp;
  const CodeSnapshotCell* code_map = state.code_map.load(std::memory_order_acquire);
  hotspot::AsgctFunction asgct = state.asgct.load(std::memory_order_relaxed);
  // One frame more than a trace delivers: a walk that fills them all was truncated (depth.hpp).
  const jint depth = pool->capture_depth();
  if (code_map != nullptr) {
    request->num_frames = capture_with_recovery(
        asgct, jni, ucontext, request->frames, depth, *code_map, stack_top_for(jni, request->sp), request->physical,
        &request->physical_count, &request->coarse_top, &request->completeness, entries);
    add_frozen_frames(state, jni, *code_map, depth, request);
  } else {
    hotspot::AsgctTrace trace{jni, 0, request->frames};
    asgct(&trace, depth, ucontext);
    request->num_frames = trace.num_frames;
  }
  JVMKIT_DCHECK(request->num_frames <= depth);
  JVMKIT_DCHECK(request->physical_count >= 0 && request->physical_count <= kMaxPhysicalFrames);
}

// Why the current thread's request is refused, or JVMKIT_REJECT_REASON_COUNT when it is accepted.
JVMKIT_SIGNAL_SAFE jvmkitRejectReason refusal(const CaptureState& state, hotspot::Attachment attachment, JNIEnv* jni,
                                              const NativeAsk* native) noexcept {
  // Enabled in Agent_OnLoad: requests are accepted from VMInit, where the key is learnt.
  if (attachment == hotspot::Attachment::kUnknown) return JVMKIT_REJECT_NOT_ENABLED;
  if (native != nullptr && state.native_tables.load(std::memory_order_acquire) == nullptr) {
    return JVMKIT_REJECT_NOT_ENABLED;
  }
  // A native request also takes HotSpot's own threads (GC workers, the VM thread): no JNIEnv.
  if (jni == nullptr && (native == nullptr || attachment != hotspot::Attachment::kAttached)) {
    return JVMKIT_REJECT_UNATTACHED_THREAD;
  }
  return JVMKIT_REJECT_REASON_COUNT;
}

}  // namespace

jvmtiError request_current_thread(void* ucontext, const jvmtiStackTraceCallbacks& callbacks, void* user_data,
                                  const NativeAsk* native) noexcept {
  ErrnoGuard errno_guard;
  JVMKIT_CAPTURE_HOOK(1);
  CaptureState& state = capture_state();
  if (!enter_gate(state)) {
    JVMKIT_CAPTURE_HOOK(0);
    return reject(JVMKIT_REJECT_NOT_ENABLED, JVMTI_ERROR_NOT_AVAILABLE);
  }
  jvmtiError result = JVMTI_ERROR_NONE;
  // GetEnv only where HotSpot has attached the thread: on a thread it is still starting, GetEnv's
  // first thread-local read mallocs (hotspot/java_thread.hpp, Attachment).
  const hotspot::Attachment attachment = hotspot::current_thread_attachment();
  JNIEnv* jni =
      attachment == hotspot::Attachment::kAttached ? current_jni(state.vm.load(std::memory_order_acquire)) : nullptr;
  RequestPool::Producer* pool = state.pool.load(std::memory_order_acquire);
  uint32_t index = 0;
  Request* request = nullptr;
  const jvmkitRejectReason refused = refusal(state, attachment, jni, native);
  if (refused == JVMKIT_REJECT_NOT_ENABLED) {
    result = reject(refused, JVMTI_ERROR_NOT_AVAILABLE);
  } else if (refused == JVMKIT_REJECT_UNATTACHED_THREAD) {
    result = reject(refused, JVMTI_ERROR_UNATTACHED_THREAD);
  } else if ((request = pool->begin(&index, RequestKind::kCaptured, callbacks, user_data, jni)) == nullptr) {
    result = reject(JVMKIT_REJECT_POOL_FULL, JVMTI_ERROR_OUT_OF_MEMORY);
  } else {
    // A native request also keeps the entry frames the Java capture's proof crosses: the places of
    // the native frames between Java frames.
    EntriesOut entries;
    EntriesOut* wanted = native != nullptr ? &entries : nullptr;
    if (jni != nullptr) capture_java(state, pool, jni, ucontext, request, wanted);
    if (native != nullptr) {
      capture_native(state, *native, jni, static_cast<const ucontext_t*>(ucontext), request, wanted);
    }
    // Count before publishing: the delivery thread's decrement of pending must follow this.
    counters().count_accepted();
    pool->publish(index, request->kind == RequestKind::kCurrentBiased);
  }
  leave_gate(state);
  JVMKIT_CAPTURE_HOOK(0);
  return result;
}

}  // namespace jvmkit::walk
