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
#pragma once

#include <jni.h>
#include <jvmkit/stack_walk.h>
#include <jvmti.h>

#include <cstdint>
#include <memory>

#include "base/debug_check.hpp"
#include "concurrent/bounded_queue.hpp"
#include "concurrent/index_stack.hpp"
#include "concurrent/wake_event.hpp"
#include "hotspot/asgct.hpp"
#include "stack_walk/physical_frame.hpp"

namespace jvmkit::walk {

enum class RequestKind : uint8_t {
  kCaptured,       // current thread with a ucontext: frames were captured in the handler
  kCurrentBiased,  // current thread without a ucontext: GetStackTrace at delivery
  kOtherBiased,    // another thread: GetStackTrace at delivery, target holds a global ref
};

constexpr int kMaxFrames = 1024;

struct Request {
  RequestKind kind;
  jvmtiStackTraceCallbacks callbacks;
  void* user_data;
  JNIEnv* jni;      // the requesting thread's JNIEnv: identifies it (see thread_registry.hpp)
  jobject target;   // kOtherBiased: global reference to the thread to trace
  jint num_frames;  // kCaptured: ASGCT's result (<= 0 is a failure code)
  uintptr_t pc;     // kCaptured: interrupted PC and SP, from the ucontext
  uintptr_t sp;
  bool coarse_top;     // kCaptured: the interrupted PC is in an nmethod with coarse debug info
  int physical_count;  // kCaptured: physical frames found from the top (frame types)
  PhysicalFrame physical[kMaxPhysicalFrames];
  hotspot::AsgctFrame frames[kMaxFrames];
};

class RequestPool {
 public:
  explicit RequestPool(uint32_t slots);
  RequestPool(const RequestPool&) = delete;
  RequestPool& operator=(const RequestPool&) = delete;

  // Async-signal-safe. Returns a free slot, or nullptr when the pool is exhausted.
  Request* acquire(uint32_t* index) noexcept {
    if (!free_.pop(index)) return nullptr;
    return &slots_[*index];
  }
  // Async-signal-safe. Hands a filled slot to the delivery thread and wakes it if it waits, or
  // if it naps while a quarter of the pool is already waiting for it.
  void publish(uint32_t index) noexcept {
    // Cannot fail: at most slots() indices exist, ready_ holds that many, and its only consumer
    // (the delivery thread) frees a cell before it can take the next one.
    const bool pushed = ready_.push(index);
    JVMKIT_DCHECK(pushed);
    (void)pushed;
    wake_.notify();
    // napping() first: it changes once per nap, while taken() changes with every delivery.
    if (wake_.napping() && backlog_is_urgent()) wake_.urge();
  }
  // Whether so many requests wait that the delivery thread must not finish its nap first.
  bool backlog_is_urgent() const noexcept { return published() - taken() >= urgent_backlog_; }
  // Async-signal-safe. Gives back a slot that was acquired but will not be published.
  void abandon(uint32_t index) noexcept { free_.push(index); }

  // Delivery side.
  bool take(uint32_t* index, uint64_t* ticket) noexcept { return ready_.pop(index, ticket); }
  void release(uint32_t index) noexcept { free_.push(index); }
  Request& at(uint32_t index) noexcept { return slots_[index]; }
  WakeEvent& wake() noexcept { return wake_; }
  // Tickets: a request's position in publication order (see thread_registry.hpp).
  uint64_t published() const noexcept { return ready_.push_position(); }
  uint64_t taken() const noexcept { return ready_.pop_position(); }
  uint32_t slots() const noexcept { return slots_count_; }

 private:
  uint32_t slots_count_;
  uint64_t urgent_backlog_;
  std::unique_ptr<Request[]> slots_;
  // A stack, not a ring: releasing a slot must never fail while a preempted handler is still
  // inside its pop (concurrent/index_stack.hpp), or the slot would be lost and the pool would shrink.
  IndexStack free_;
  BoundedQueue<uint32_t> ready_;
  WakeEvent wake_;
};

}  // namespace jvmkit::walk
