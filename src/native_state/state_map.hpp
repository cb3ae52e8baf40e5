// The logic of a native state table, independent of JNI so that unit tests (ASan, TSan) run it with
// plain pointers standing in for objects.
//
// An entry binds a key (an object's identity hash, or an object id) and, for objects, a reference
// REF to the object (a JNI weak global reference in the library) to a state. Object entries match
// only the same object (REFS.same), so colliding hashes never share a state; id entries (REF null)
// match only ids. Readers: lock-free, inside an epoch Guard. Writers: one mutex per map, an
// AdaptiveMutex (they hold it briefly; a futex sleep and wake-up would cost far more than the wait).
//
// Reclamation (the correctness argument is in docs/native_state.md): a removed entry is unlinked
// at once, but its memory and its reference are released (REFS.drop) only when EpochDomain proves
// that no reader can still hold them; a reader may therefore pass a removed entry's reference to
// REFS.same without it ever having been deleted.
//
// REFS, the writer-side policy passed to every call that may release references, provides:
//   bool same(Ref r)   r refers to the object of this call
//   Ref  make()        a new reference to the object of this call (null on failure)
//   void drop(Ref r)   releases a reference
//   bool dead(Ref r)   the object of r has been collected
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <new>

#include "concurrent/adaptive_mutex.hpp"
#include "concurrent/concurrent_int_map.hpp"
#include "concurrent/epoch_domain.hpp"

namespace jvmkit::native_state {

template <class Ref>
struct StateEntry {
  StateEntry(int32_t k, Ref r, void* s) : key(k), ref(r), state(s) {}
  const int32_t key;
  const Ref ref;  // null for an object-id entry
  std::atomic<void*> state;
};

enum class SetResult { kOk, kNoMemory };

template <class Ref>
class StateMap {
 public:
  using Entry = StateEntry<Ref>;

  explicit StateMap(size_t initial_entries) : map_(initial_entries) {}
  StateMap(const StateMap&) = delete;
  StateMap& operator=(const StateMap&) = delete;

  bool ok() const { return map_.ok(); }

  // Reader: never blocks, writes nothing shared. SAME(ref) identifies the object.
  template <class Same>
  void* get(int32_t key, Same&& same) const {
    EpochDomain::Guard guard;
    Entry* e = map_.find(key, [&](Entry* x) { return x->ref != Ref{} && same(x->ref); });
    return e == nullptr ? nullptr : e->state.load(std::memory_order_acquire);
  }

  // Reader: the state of object id KEY.
  void* get_oid(int32_t key) const {
    EpochDomain::Guard guard;
    Entry* e = map_.find(key, [](Entry* x) { return x->ref == Ref{}; });
    return e == nullptr ? nullptr : e->state.load(std::memory_order_acquire);
  }

  // Writer: binds STATE to the object of REFS (key KEY), replacing its state if it has one.
  template <class Refs>
  SetResult set(int32_t key, void* state, Refs& refs) {
    std::lock_guard<AdaptiveMutex> lock(writer_);
    Entry* e = map_.find(key, [&](Entry* x) { return x->ref != Ref{} && refs.same(x->ref); });
    if (e != nullptr) {
      e->state.store(state, std::memory_order_release);
    } else {
      Ref r = refs.make();
      if (r == Ref{}) return SetResult::kNoMemory;
      if (!add(key, r, state)) {
        refs.drop(r);
        return SetResult::kNoMemory;
      }
    }
    reclaim_locked(refs);
    return SetResult::kOk;
  }

  // Writer: binds STATE to object id KEY.
  template <class Refs>
  SetResult set_oid(int32_t key, void* state, Refs& refs) {
    std::lock_guard<AdaptiveMutex> lock(writer_);
    Entry* e = map_.find(key, [](Entry* x) { return x->ref == Ref{}; });
    if (e != nullptr) {
      e->state.store(state, std::memory_order_release);
    } else if (!add(key, Ref{}, state)) {
      return SetResult::kNoMemory;
    }
    reclaim_locked(refs);
    return SetResult::kOk;
  }

  // Writer: removes the object's entry and returns its state (null when it had none).
  template <class Refs>
  void* remove(int32_t key, Refs& refs) {
    std::lock_guard<AdaptiveMutex> lock(writer_);
    Entry* e = map_.find(key, [&](Entry* x) { return x->ref != Ref{} && refs.same(x->ref); });
    return unlink_locked(e, refs);
  }

  // Writer: removes object id KEY's entry and returns its state (null when it had none).
  template <class Refs>
  void* remove_oid(int32_t key, Refs& refs) {
    std::lock_guard<AdaptiveMutex> lock(writer_);
    Entry* e = map_.find(key, [](Entry* x) { return x->ref == Ref{}; });
    return unlink_locked(e, refs);
  }

  // Writer: removes every object entry whose object is dead, handing its state to HANDED(state)
  // (called with the writer lock held). Returns how many.
  template <class Refs, class Fn>
  size_t sweep(Refs& refs, Fn&& handed) {
    std::lock_guard<AdaptiveMutex> lock(writer_);
    size_t n = 0;
    // Collect first: erase() must not run while for_each walks the array.
    Entry* batch[64];
    bool more = true;
    while (more) {
      size_t count = 0;
      more = false;
      map_.for_each([&](Entry* x) {
        if (count == 64) {
          more = true;
          return;
        }
        if (x->ref != Ref{} && refs.dead(x->ref)) batch[count++] = x;
      });
      for (size_t i = 0; i < count; ++i) {
        void* s = batch[i]->state.load(std::memory_order_relaxed);
        unlink_locked(batch[i], refs);
        handed(s);
      }
      n += count;
    }
    reclaim_locked(refs, true);
    return n;
  }

  // Writer: releases whatever readers no longer hold (also done by every other writer call).
  template <class Refs>
  void reclaim(Refs& refs) {
    std::lock_guard<AdaptiveMutex> lock(writer_);
    reclaim_locked(refs, true);
  }

  // With no other thread using the map: hands every state to HANDED and releases everything.
  template <class Refs, class Fn>
  void destroy(Refs& refs, Fn&& handed) {
    std::lock_guard<AdaptiveMutex> lock(writer_);
    map_.for_each([&](Entry* x) {
      handed(x->state.load(std::memory_order_relaxed));
      release(x, refs);
    });
    retired_.drain([&](Entry* x) { release(x, refs); });
  }

  size_t size() const { return map_.size(); }
  // Writer-side diagnostics, for tests.
  size_t capacity() {
    std::lock_guard<AdaptiveMutex> lock(writer_);
    return map_.capacity();
  }
  size_t retired() {
    std::lock_guard<AdaptiveMutex> lock(writer_);
    return retired_.size();
  }
  // Reclamation attempts so far (each one costs two membarrier calls).
  size_t reclaim_attempts() {
    std::lock_guard<AdaptiveMutex> lock(writer_);
    return reclaim_attempts_;
  }

 private:
  bool add(int32_t key, Ref r, void* state) {
    Entry* e = new (std::nothrow) Entry(key, r, state);
    if (e == nullptr) return false;
    if (!map_.insert(e)) {
      delete e;
      return false;
    }
    return true;
  }

  template <class Refs>
  void* unlink_locked(Entry* e, Refs& refs) {
    if (e == nullptr) return nullptr;
    void* s = e->state.load(std::memory_order_relaxed);
    map_.erase(e);
    retired_.retire(e);
    reclaim_locked(refs);
    return s;
  }

  // Each reclamation attempt costs two membarrier(2) calls, and each of those interrupts every CPU
  // that runs a thread of the process: tens of microseconds on a VM, paid by the readers there
  // too. So removed entries wait: an attempt is made once kReclaimBatch of them wait and
  // kReclaimInterval has passed since the last attempt, or at once when kReclaimMax wait (which
  // bounds the memory held). FORCE: release what is safe now.
  template <class Refs>
  void reclaim_locked(Refs& refs, bool force = false) {
    if (!force && !reclaim_due()) return;
    last_reclaim_ = std::chrono::steady_clock::now();
    reclaim_attempts_++;
    retired_.reclaim([&](Entry* x) { release(x, refs); });
    map_.reclaim();
  }

  bool reclaim_due() const {
    const size_t waiting = retired_.size();
    if (waiting >= kReclaimMax) return true;
    if (waiting < kReclaimBatch && map_.retired_tables() == 0) return false;
    return std::chrono::steady_clock::now() - last_reclaim_ >= kReclaimInterval;
  }

  static constexpr size_t kReclaimBatch = 64;
  static constexpr size_t kReclaimMax = 4096;
  static constexpr std::chrono::milliseconds kReclaimInterval{10};

  template <class Refs>
  static void release(Entry* e, Refs& refs) {
    if (e->ref != Ref{}) refs.drop(e->ref);
    delete e;
  }

  AdaptiveMutex writer_;  // spins before it sleeps: writers hold it for ~100 ns
  ConcurrentIntMap<Entry> map_;
  RetireList<Entry*> retired_;
  std::chrono::steady_clock::time_point last_reclaim_{};
  size_t reclaim_attempts_ = 0;
};

}  // namespace jvmkit::native_state
