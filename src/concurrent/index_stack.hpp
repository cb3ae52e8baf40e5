// A lock-free LIFO of small indices (0 .. capacity-1): the free list of a preallocated pool,
// usable from signal handlers.
//
// Why not BoundedQueue: a bounded ring's push can find its cell still being read by a pop that
// was preempted between claiming the cell and releasing it, and must then fail or wait. For a free
// list that means a released index is lost (the pool shrinks for good) or a handler waits on
// another thread. A Treiber stack has neither problem: push never fails, and an operation only
// retries when another one completed in between (lock-free, so a handler that interrupted an
// operation on its own thread cannot deadlock).
//
// ABA: the head word carries a 32-bit version bumped by every change, so a pop that read a top
// and its successor, was delayed while the top was popped and pushed back, cannot install a stale
// successor. No allocation after construction, no syscalls.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "base/debug_check.hpp"
#include "base/signal_safe.hpp"

namespace jvmkit {

class IndexStack {
 public:
  // An empty stack for the indices 0 .. capacity-1.
  explicit IndexStack(uint32_t capacity) : next_(new std::atomic<uint32_t>[capacity]), capacity_(capacity) {
    for (uint32_t i = 0; i < capacity; i++) next_[i].store(kEmpty, std::memory_order_relaxed);
  }
  IndexStack(const IndexStack&) = delete;
  IndexStack& operator=(const IndexStack&) = delete;

  uint32_t capacity() const noexcept { return capacity_; }

  // Takes the most recently pushed index. Returns false when the stack is empty.
  // Memory written by the pusher before push() is visible to the popper after pop().
  JVMKIT_SIGNAL_SAFE bool pop(uint32_t* index) noexcept {
    uint64_t head = head_.load(std::memory_order_acquire);
    for (;;) {
      uint32_t top = top_of(head);
      if (top == kEmpty) return false;
      JVMKIT_DCHECK(top < capacity_);
      // May read a successor that is already stale: the version check in the CAS rejects it.
      uint32_t next = next_[top].load(std::memory_order_relaxed);
      if (head_.compare_exchange_weak(head, with_top(head, next), std::memory_order_acquire,
                                      std::memory_order_acquire)) {
        *index = top;
        return true;
      }
    }
  }

  // Gives back index, which the caller owns (it was popped, or never pushed). Never fails.
  JVMKIT_SIGNAL_SAFE void push(uint32_t index) noexcept {
    JVMKIT_DCHECK(index < capacity_);  // only the indices 0 .. capacity-1 have a successor slot
    uint64_t head = head_.load(std::memory_order_relaxed);
    for (;;) {
      next_[index].store(top_of(head), std::memory_order_relaxed);
      if (head_.compare_exchange_weak(head, with_top(head, index), std::memory_order_release,
                                      std::memory_order_relaxed)) {
        return;
      }
    }
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  JVMKIT_SIGNAL_SAFE static uint32_t top_of(uint64_t head) noexcept { return static_cast<uint32_t>(head); }
  // The same head with a new top and the next version.
  JVMKIT_SIGNAL_SAFE static uint64_t with_top(uint64_t head, uint32_t top) noexcept {
    return (((head >> 32) + 1) << 32) | top;
  }

  std::atomic<uint64_t> head_{kEmpty};  // version 0, empty
  std::unique_ptr<std::atomic<uint32_t>[]> next_;
  uint32_t capacity_;
};

}  // namespace jvmkit
