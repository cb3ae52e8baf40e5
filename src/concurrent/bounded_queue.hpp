// A bounded multi-producer multi-consumer FIFO of small trivially copyable values (Vyukov's
// sequence-numbered ring), usable from signal handlers.
//
// Signal safety: push and pop are lock-free in the sense that matters inside a handler: they never
// wait for another thread. A push or pop that finds its cell owned by an operation still in
// progress elsewhere returns false ("full"/"empty") instead of spinning, so a handler that
// interrupted that very operation on its own thread cannot deadlock. No allocation after
// construction, no syscalls.
//
// Each successful push is given a ticket: its position in the total order of pushes (0, 1, 2...).
// pop returns the same ticket, so a consumer can tell how far the stream has been drained.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "base/debug_check.hpp"
#include "base/signal_safe.hpp"

namespace jvmkit {

template <typename T>
class BoundedQueue {
  static_assert(std::is_trivially_copyable_v<T>, "values are copied in signal context");

 public:
  // capacity is rounded up to a power of two (at least 2).
  explicit BoundedQueue(size_t capacity) {
    size_t cap = 2;
    while (cap < capacity) cap <<= 1;
    mask_ = cap - 1;
    cells_ = std::make_unique<Cell[]>(cap);
    for (size_t i = 0; i < cap; i++) cells_[i].sequence.store(i, std::memory_order_relaxed);
  }
  BoundedQueue(const BoundedQueue&) = delete;
  BoundedQueue& operator=(const BoundedQueue&) = delete;

  size_t capacity() const { return mask_ + 1; }

  // Appends value. Returns false when the queue is full (or the next cell is still being read).
  // On success, *ticket (if not null) receives the push's position in the stream.
  JVMKIT_SIGNAL_SAFE bool push(T value, uint64_t* ticket = nullptr) noexcept {
    uint64_t pos = tail_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells_[pos & mask_];
      uint64_t seq = cell.sequence.load(std::memory_order_acquire);
      int64_t diff = static_cast<int64_t>(seq - pos);
      if (diff == 0) {
        if (tail_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          // The cell was free, so the value POS - capacity() has been popped: at most capacity()
          // values are in the ring.
          JVMKIT_DCHECK(pos - head_.load(std::memory_order_relaxed) <= mask_);
          cell.value = value;
          cell.sequence.store(pos + 1, std::memory_order_release);
          if (ticket) *ticket = pos;
          return true;
        }
      } else if (diff < 0) {
        return false;
      } else {
        pos = tail_.load(std::memory_order_relaxed);
      }
    }
  }

  // Removes the oldest value. Returns false when the queue is empty (or the oldest cell is still
  // being written: its producer publishes it soon and then wakes the consumer).
  bool pop(T* value, uint64_t* ticket = nullptr) noexcept {
    uint64_t pos = head_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells_[pos & mask_];
      uint64_t seq = cell.sequence.load(std::memory_order_acquire);
      int64_t diff = static_cast<int64_t>(seq - (pos + 1));
      if (diff == 0) {
        if (head_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          JVMKIT_DCHECK(pos < tail_.load(std::memory_order_relaxed));  // only what was pushed is popped
          *value = cell.value;
          cell.sequence.store(pos + mask_ + 1, std::memory_order_release);
          if (ticket) *ticket = pos;
          return true;
        }
      } else if (diff < 0) {
        return false;
      } else {
        pos = head_.load(std::memory_order_relaxed);
      }
    }
  }

  // Pushes claimed so far: every push that happens after this call gets a ticket >= the result.
  JVMKIT_SIGNAL_SAFE uint64_t push_position() const noexcept { return tail_.load(std::memory_order_seq_cst); }
  // Pops claimed so far: every value whose ticket is below the result has been taken.
  JVMKIT_SIGNAL_SAFE uint64_t pop_position() const noexcept { return head_.load(std::memory_order_seq_cst); }

 private:
  struct Cell {
    std::atomic<uint64_t> sequence{0};
    T value{};
  };
  // Producers and the consumer side write different counters: keep them on separate cache lines.
  alignas(64) std::atomic<uint64_t> tail_{0};
  alignas(64) std::atomic<uint64_t> head_{0};
  alignas(64) std::unique_ptr<Cell[]> cells_;
  size_t mask_ = 0;
};

}  // namespace jvmkit
