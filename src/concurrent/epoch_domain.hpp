// Epoch-based reclamation: lets lock-free readers hold pointers (and JNI handles) that a writer has
// already unlinked, and tells writers when nobody can still hold them.
//
// Invariant: an object unlinked from a shared structure and retired at epoch R is reclaimed only
// once the global epoch has reached R + 2. The epoch advances from E to E + 1 only when every
// reader inside a Guard has announced E, so a reader that could have seen the object before it was
// unlinked (it announced R - 1 or R) has left its Guard before anybody reclaims it.
//
// Readers write only their own cache-line-sized slot (written by its owner thread, read by
// writers): no shared counters, no locks. Writers never wait for readers: when a reader is slow
// the epoch simply does not advance and reclamation is postponed.
//
// Store-load ordering between a reader's announcement and its later loads is what makes this
// correct, and a full fence per read costs about as much as the rest of a table lookup. So the
// fence is asymmetric (as in liburcu): readers only prevent compiler reordering, and a writer that
// wants to advance the epoch first calls membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which
// makes every running thread of the process execute a full barrier. Where membarrier is missing,
// readers announce with a seq_cst store (a locked instruction) instead.
//
// Signal context: Guard is async-signal-safe once the thread has a slot (register_current_thread()
// outside the handler); the first Guard on a thread allocates a slot under a mutex.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

namespace jvmkit {

class EpochDomain {
 public:
  // The process-wide domain. One domain serves every structure: a reader is cheap to announce
  // (one slot per thread), and a writer's scan covers every thread that ever read.
  static EpochDomain& instance();

  // Marks the calling thread as reading for its lifetime. Nested guards are allowed.
  class Guard {
   public:
    Guard();
    ~Guard();
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    void* thread_;  // the calling thread's slot record (one TLS lookup per guard)
  };

  // Gives the calling thread its slot now (not async-signal-safe); later Guards are signal-safe.
  void register_current_thread();

  // The current global epoch (>= 1).
  uint64_t epoch() const { return global_.load(std::memory_order_seq_cst); }

  // Advances the epoch if every active reader has announced the current one; returns the epoch.
  uint64_t try_advance();

  // True when an object retired at epoch RETIRED is unreachable for readers once the global
  // epoch is NOW (a value try_advance returned).
  static bool is_safe(uint64_t retired, uint64_t now) { return retired + 2 <= now; }

  // Number of slots ever created (for tests).
  size_t slot_count() const;

  // True when readers announce with a plain store and writers use membarrier(2) to order them
  // (the fast path); false when the kernel lacks it and readers use a locked store instead.
  bool asymmetric() const { return asymmetric_; }

  // For tests of the fallback: makes the domain, if it is created after this call, behave as if
  // the kernel had no membarrier(2). No effect once instance() has been called.
  static void disable_membarrier_for_testing();

  struct alignas(64) Slot {
    std::atomic<uint64_t> announced{0};  // 0: not reading; else the epoch seen on entry
    std::atomic<bool> owned{false};      // a live thread uses this slot
    Slot* next = nullptr;                // registry list; immutable once published
  };

 private:
  EpochDomain();
  Slot* acquire_slot();
  Slot* claim_slot();
  void heavy_barrier() const;

  bool asymmetric_ = false;
  std::atomic<uint64_t> global_{1};
  std::atomic<Slot*> slots_{nullptr};  // slots are never freed: readers and scans may hold them
  std::atomic<size_t> slot_count_{0};
};

// Objects a writer has unlinked, waiting for the readers that may hold them. Not thread-safe: each
// owner serialises its writers (and so its RetireList) itself.
template <class T>
class RetireList {
 public:
  // Call after ITEM has been unlinked (made unreachable for new readers).
  void retire(T item) {
    // The unlink was a seq_cst store, so it precedes this seq_cst epoch read: a reader that
    // announces a later epoch cannot see ITEM.
    items_.push_back({EpochDomain::instance().epoch(), std::move(item)});
  }

  // Hands every item that no reader can hold any more to FREE_FN; returns how many. Does nothing
  // while fewer than MIN_BATCH items wait: advancing the epoch costs a membarrier(2) call, so
  // owners that retire often reclaim in batches.
  template <class Fn>
  size_t reclaim(Fn&& free_fn, size_t min_batch = 1) {
    if (items_.empty() || items_.size() < min_batch) return 0;
    EpochDomain& domain = EpochDomain::instance();
    // Two advances are enough when no reader is active: items retired now become safe at once.
    domain.try_advance();
    uint64_t now = domain.try_advance();
    size_t freed = 0;
    size_t kept = 0;
    for (auto& r : items_) {
      if (EpochDomain::is_safe(r.first, now)) {
        free_fn(r.second);
        ++freed;
      } else {
        items_[kept++] = std::move(r);
      }
    }
    items_.resize(kept);
    return freed;
  }

  // Hands every item to FREE_FN, whatever the readers: only when no reader can exist any more.
  template <class Fn>
  void drain(Fn&& free_fn) {
    for (auto& r : items_) free_fn(r.second);
    items_.clear();
  }

  size_t size() const { return items_.size(); }

 private:
  std::vector<std::pair<uint64_t, T>> items_;
};

}  // namespace jvmkit
