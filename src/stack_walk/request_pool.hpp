// The preallocated requests between the capture side (signal handlers, any thread) and the
// delivery thread.
//
// A request slot moves through three states, each owned by exactly one party:
//   free      index in free_     -> taken by one capturing thread (pop)
//   filling   owned by that thread -> published (push to ready_, then wake)
//   ready     index in ready_    -> taken by the delivery thread, reported, then pushed back to free_
// The queues carry only indices; the slot's contents are written before the release-store of the
// push and read after the acquire-load of the pop, so no slot is ever touched by two parties.
// Ready order is publication order, so traces of one sampled thread are delivered in request order.
//
// The frames of all slots live in one mapping made when the pool is (once per session), each slot's
// max_frames + 1 of them (depth.hpp), in address space only until a capture writes them: a trace
// backs the pages it fills, so memory follows the depth of the stacks sampled, not the limit.
#pragma once

#include <jni.h>
#include <jvmkit/stack_walk.h>
#include <jvmti.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "base/clock.hpp"
#include "base/debug_check.hpp"
#include "base/signal_safe.hpp"
#include "concurrent/bounded_queue.hpp"
#include "concurrent/index_stack.hpp"
#include "concurrent/wake_event.hpp"
#include "hotspot/asgct.hpp"
#include "stack_walk/completeness.hpp"
#include "stack_walk/depth.hpp"
#include "stack_walk/native/native_part.hpp"
#include "stack_walk/physical_frame.hpp"

namespace jvmkit::walk {

enum class RequestKind : uint8_t {
  kCaptured,       // current thread: frames were captured in the requesting call (see at_call)
  kCurrentBiased,  // current thread whose stack could not be captured then: GetStackTrace at delivery
  kOtherBiased,    // another thread: GetStackTrace at delivery, target holds a global ref
};

struct Request {
  RequestKind kind;
  jvmtiStackTraceCallbacks callbacks;
  void* user_data;
  JNIEnv* jni;      // the requesting thread's JNIEnv: identifies it (see thread_registry.hpp)
  int64_t time_ns;  // CLOCK_MONOTONIC ns of the request (JvmkitCurrentTraceTime), also for kinds taken later
  // Current-thread kinds: the id of the Java thread the JavaThread ran at the request (a mounted
  // virtual thread's, else its own; 0 where the JVM does not keep it, see virtual_threads.hpp).
  int64_t java_thread_id;
  jobject target;   // kOtherBiased: global reference to the thread to trace
  jint num_frames;  // kCaptured: ASGCT's result (<= 0 is a failure code)
  uintptr_t pc;     // kCaptured: interrupted PC and SP, from the ucontext (at_call: the last Java frame's)
  uintptr_t sp;
  bool at_call;               // kCaptured without a ucontext: the stack at the request, from the last Java frame
  bool own_stack;             // kCaptured: a virtual thread's own frames, from JVMTI (current_thread_request.hpp)
  bool coarse_top;            // kCaptured: the interrupted PC is in an nmethod with coarse debug info
  Completeness completeness;  // kCaptured: the capture's proof that the trace is the whole stack
  int physical_count;         // kCaptured: physical frames found from the top (frame types)
  PhysicalFrame physical[kMaxPhysicalFrames];
  // kCaptured: the slot's capture_depth() frames in the pool's storage, set once by the pool. The
  // capture writes up to capture_depth() of them (num_frames); a trace delivers at most max_frames().
  hotspot::AsgctFrame* frames = nullptr;
  NativePart native;  // a request for native frames; its pcs belong to the slot

  // Gives every field but the two frame arrays (physical, and frames, whose pointer belongs to the
  // slot) its starting value, so that nothing of the slot's previous request survives into this one
  // (the arrays are read only up to their counts, which start at 0). A field added above gets its
  // starting value here.
  JVMKIT_SIGNAL_SAFE void begin(RequestKind kind_, const jvmtiStackTraceCallbacks& callbacks_, void* user_data_,
                                JNIEnv* jni_) noexcept {
    kind = kind_;
    callbacks = callbacks_;
    user_data = user_data_;
    jni = jni_;
    // Every path begins its request inside RequestStackTrace (a signal handler's too), so this is
    // the request's moment even for a request whose frames the delivery thread takes later.
    time_ns = monotonic_ns();
    java_thread_id = 0;
    target = nullptr;
    num_frames = 0;
    pc = 0;
    sp = 0;
    at_call = false;
    own_stack = false;
    coarse_top = false;
    completeness = Completeness::kUnchecked;
    physical_count = 0;
    native.begin();
  }
};

class RequestPool {
 public:
  // SLOTS requests, whose traces hold up to MAX_FRAMES frames (valid_stack_depth), and with
  // NATIVE_FRAMES, kMaxNativeFrames native PCs each (a second mapping, only for sessions with native
  // frames). A mapping may fail: then allocated() is false and the pool must not be used.
  RequestPool(uint32_t slots, jint max_frames, bool native_frames = false);
  ~RequestPool();
  RequestPool(const RequestPool&) = delete;
  RequestPool& operator=(const RequestPool&) = delete;

  bool allocated() const noexcept { return frames_ != nullptr; }
  // The most frames a delivered trace holds, and the frames each slot holds: one more, so that a
  // walk that fills them all proves the trace truncated (depth.hpp).
  jint max_frames() const noexcept { return max_frames_; }
  JVMKIT_SIGNAL_SAFE jint capture_depth() const noexcept { return max_frames_ + 1; }

  // The side that makes requests (signal handlers, and the other-thread path): begin a request,
  // publish it or give it back, read the publication count. Signal code gets this view, never the
  // pool, so it cannot reach the delivery side.
  class Producer {
   public:
    explicit Producer(RequestPool& pool) noexcept : pool_(pool) {}
    // Takes a free slot and begins a request in it (Request::begin): the one way every path starts
    // a request. Returns nullptr when the pool is exhausted.
    JVMKIT_SIGNAL_SAFE Request* begin(uint32_t* index, RequestKind kind, const jvmtiStackTraceCallbacks& callbacks,
                                      void* user_data, JNIEnv* jni) noexcept {
      return pool_.begin(index, kind, callbacks, user_data, jni);
    }
    // Hands a filled slot to the delivery thread (and wakes it, see RequestPool::publish).
    JVMKIT_SIGNAL_SAFE void publish(uint32_t index, bool urgent = false) noexcept { pool_.publish(index, urgent); }
    // Gives back a slot that was begun but will not be published.
    JVMKIT_SIGNAL_SAFE void abandon(uint32_t index) noexcept { pool_.abandon(index); }
    // Tickets: a request's position in publication order (see thread_registry.hpp).
    JVMKIT_SIGNAL_SAFE uint64_t published() const noexcept { return pool_.published(); }
    // The frames a capture may write into its slot's frames.
    JVMKIT_SIGNAL_SAFE jint capture_depth() const noexcept { return pool_.capture_depth(); }

   private:
    RequestPool& pool_;
  };
  Producer& producer() noexcept { return producer_; }

  // Whether so many requests wait that the delivery thread must not finish its nap first.
  JVMKIT_SIGNAL_SAFE bool backlog_is_urgent() const noexcept { return published() - taken() >= urgent_backlog_; }

  // Delivery side (one consumer at a time).
  bool take(uint32_t* index, uint64_t* ticket) noexcept {
    if (!ready_.pop(index, ticket)) return false;
    // Each published request holds a slot of its own until it is released: never more than
    // slots_count_ of them wait.
    JVMKIT_DCHECK(*index < slots_count_ && published() - taken() <= slots_count_);
    return true;
  }
  void release(uint32_t index) noexcept {
    JVMKIT_DCHECK(index < slots_count_);
    free_.push(index);
  }
  Request& at(uint32_t index) noexcept {
    JVMKIT_DCHECK(index < slots_count_);
    return slots_[index];
  }
  WakeEvent& wake() noexcept { return wake_; }
  // Tickets: a request's position in publication order (see thread_registry.hpp).
  JVMKIT_SIGNAL_SAFE uint64_t published() const noexcept { return ready_.push_position(); }
  JVMKIT_SIGNAL_SAFE uint64_t taken() const noexcept { return ready_.pop_position(); }

 private:
  // Producer side (through Producer). Takes a free slot and begins a request in it (Request::begin):
  // the one way every path starts a request. Returns nullptr when the pool is exhausted.
  JVMKIT_SIGNAL_SAFE Request* begin(uint32_t* index, RequestKind kind, const jvmtiStackTraceCallbacks& callbacks,
                                    void* user_data, JNIEnv* jni) noexcept {
    Request* request = acquire(index);
    if (request != nullptr) request->begin(kind, callbacks, user_data, jni);
    return request;
  }
  // Hands a filled slot to the delivery thread and wakes it if it waits, or if it naps while a
  // quarter of the pool is already waiting for it, or the request is URGENT (its stack is taken at
  // delivery, and the thread's stack moves on meanwhile).
  JVMKIT_SIGNAL_SAFE void publish(uint32_t index, bool urgent = false) noexcept {
    JVMKIT_DCHECK(index < slots_count_);
    // Cannot fail: at most slots_count_ indices exist, ready_ holds that many, and its only consumer
    // (the delivery thread) frees a cell before it can take the next one.
    const bool pushed = ready_.push(index);
    JVMKIT_DCHECK(pushed);
    (void)pushed;
    wake_.notify();
    // napping() first: it changes once per nap, while taken() changes with every delivery.
    if (wake_.napping() && (urgent || backlog_is_urgent())) wake_.urge();
  }
  // Gives back a slot that was begun but will not be published.
  JVMKIT_SIGNAL_SAFE void abandon(uint32_t index) noexcept {
    JVMKIT_DCHECK(index < slots_count_);
    free_.push(index);
  }

  JVMKIT_SIGNAL_SAFE Request* acquire(uint32_t* index) noexcept {
    if (!free_.pop(index)) return nullptr;
    JVMKIT_DCHECK(*index < slots_count_);
    return &slots_[*index];
  }

  uint32_t slots_count_;
  jint max_frames_;
  uint64_t urgent_backlog_;
  std::unique_ptr<Request[]> slots_;
  hotspot::AsgctFrame* frames_ = nullptr;  // slots_count_ * capture_depth() frames, mapped
  size_t frames_bytes_ = 0;
  uintptr_t* native_pcs_ = nullptr;  // slots_count_ * kMaxNativeFrames, mapped for native sessions
  size_t native_bytes_ = 0;
  // A stack, not a ring: releasing a slot must never fail while a preempted handler is still
  // inside its pop (concurrent/index_stack.hpp), or the slot would be lost and the pool would shrink.
  IndexStack free_;
  BoundedQueue<uint32_t> ready_;
  WakeEvent wake_;
  Producer producer_{*this};
};

}  // namespace jvmkit::walk
