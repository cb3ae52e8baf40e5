// A pointer to an immutable snapshot that signal handlers may read while writers replace it.
//
// Readers (any thread, including a signal handler that interrupted a writer) announce themselves
// in one shared counter, load the pointer, read the snapshot, and leave. Writers (serialised by
// the caller) publish a new snapshot and retire the old one; a retired snapshot is freed only
// once the writer has seen the reader counter at zero AFTER the retirement:
//
//   reader:  readers.fetch_add (seq_cst); p = current.load (seq_cst); ...use p...; readers.fetch_sub
//   writer:  current.store(new) (seq_cst); retired += old; if readers.load (seq_cst) == 0: free retired
//
// Why it holds: all four are seq_cst, so they are totally ordered. A reader that still holds OLD
// loaded CURRENT before the writer's store, so its fetch_add precedes the store, which precedes
// the writer's load of the counter: the writer sees it (counter > 0) unless it has already left.
// A reader whose fetch_add comes after the writer's load reads CURRENT after the store, so it
// cannot get OLD. Readers never wait and never write anything but the counter; writers never
// wait for readers either (they free later, at the next update or at reclaim()).
//
// Async-signal-safety: Reader is two atomic RMWs and a load; no allocation, no lock, no TLS.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "base/debug_check.hpp"
#include "base/signal_safe.hpp"

namespace jvmkit {

template <class T>
class SnapshotCell {
 public:
  SnapshotCell() = default;
  ~SnapshotCell() {
    delete current_.load(std::memory_order_relaxed);
    retired_.clear();
  }
  SnapshotCell(const SnapshotCell&) = delete;
  SnapshotCell& operator=(const SnapshotCell&) = delete;

  // A read-side critical section. get() is nullptr before the first publish.
  class Reader {
   public:
    JVMKIT_SIGNAL_SAFE explicit Reader(const SnapshotCell& cell) noexcept : cell_(cell) {
      cell_.readers_.fetch_add(1, std::memory_order_seq_cst);
      snapshot_ = cell_.current_.load(std::memory_order_seq_cst);
    }
    JVMKIT_SIGNAL_SAFE ~Reader() {
      [[maybe_unused]] const long inside = cell_.readers_.fetch_sub(1, std::memory_order_release);
      JVMKIT_DCHECK(inside > 0);  // the counter counts this reader, so it never goes below 0
    }
    Reader(const Reader&) = delete;
    Reader& operator=(const Reader&) = delete;
    JVMKIT_SIGNAL_SAFE const T* get() const noexcept { return snapshot_; }

   private:
    const SnapshotCell& cell_;
    const T* snapshot_;
  };

  // Writer side (callers serialise writers). Takes ownership of NEXT (may be nullptr).
  void publish(std::unique_ptr<T> next) {
    T* old = current_.exchange(next.release(), std::memory_order_seq_cst);
    if (old != nullptr) retired_.emplace_back(old);
    reclaim();
  }

  // Frees the retired snapshots if no reader is inside now; returns how many are still waiting.
  size_t reclaim() {
    if (!retired_.empty() && readers_.load(std::memory_order_seq_cst) == 0) retired_.clear();
    return retired_.size();
  }

  // Writer side: the current snapshot (the writer may read it without a Reader).
  const T* current() const noexcept { return current_.load(std::memory_order_acquire); }
  size_t retired() const noexcept { return retired_.size(); }

 private:
  std::atomic<T*> current_{nullptr};
  mutable std::atomic<long> readers_{0};
  std::vector<std::unique_ptr<T>> retired_;
};

}  // namespace jvmkit
