// A hash map from int32 keys to entries, with lock-free readers and one writer at a time.
//
// Several entries may share a key (the native state tables key objects by identity hash, which
// collides): a reader walks every entry of its key and lets a predicate pick one.
//
// Layout: open addressing with linear probing over an array of Entry pointers. A slot goes
// empty -> entry -> tombstone (removal) and never back, until a rebuild copies the live entries
// into a new array and publishes it. Readers never see a half-built state:
//  - an entry is fully built before its pointer is stored (release) in a slot;
//  - a published array is never modified once a newer one replaced it, and stays at most half
//    full (tombstones included), so every probe ends at an empty slot;
//  - replaced arrays are retired through EpochDomain, so a reader still probing one is safe.
// Entries themselves belong to the caller: erase() unlinks, and the caller retires the entry.
//
// Readers must run inside an EpochDomain::Guard. Writers (insert, erase, rebuild, reclaim) must be
// serialised by the caller (e.g. one mutex per map); they never wait for readers.
// Reads are async-signal-safe (no allocation, no locks) when the thread's epoch slot exists.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

#include "concurrent/epoch_domain.hpp"

namespace jvmkit {

// ENTRY must have a member `int32_t key` that does not change while the entry is in the map.
template <class Entry>
class ConcurrentIntMap {
 public:
  // Room for about MIN_ENTRIES entries before the first growth (any value >= 1).
  explicit ConcurrentIntMap(size_t min_entries) : min_capacity_(capacity_for(min_entries)) {
    table_.store(Table::create(min_capacity_), std::memory_order_release);
  }

  ~ConcurrentIntMap() {
    Table::destroy(table_.load(std::memory_order_relaxed));
    retired_.drain([](Table* t) { Table::destroy(t); });
  }

  ConcurrentIntMap(const ConcurrentIntMap&) = delete;
  ConcurrentIntMap& operator=(const ConcurrentIntMap&) = delete;

  // False when the map could not be created (out of memory).
  bool ok() const { return table_.load(std::memory_order_relaxed) != nullptr; }

  // Reader (inside a Guard) or writer. Returns the first entry with KEY for which MATCH(entry)
  // returns true, or nullptr. MATCH may be called on entries a concurrent writer is erasing.
  template <class Match>
  Entry* find(int32_t key, Match&& match) const {
    // seq_cst loads (plain moves on x86-64) pair with the reader's seq_cst announcement: see
    // EpochDomain::try_advance for why a reclaimed entry is then unreachable.
    const Table* t = table_.load(std::memory_order_seq_cst);
    for (size_t i = t->home(key);; i = (i + 1) & t->mask) {
      Entry* e = t->slots[i].load(std::memory_order_seq_cst);
      if (e == nullptr) return nullptr;
      if (e != tombstone() && e->key == key && match(e)) return e;
    }
  }

  // Writer. Adds E (not yet in the map). Returns false when growing failed (out of memory); the
  // map is then unchanged.
  bool insert(Entry* e) {
    Table* t = table_.load(std::memory_order_relaxed);
    if ((t->used + 1) * 2 > t->capacity()) {
      t = rebuild(live_.load(std::memory_order_relaxed) + 1);
      if (t == nullptr) return false;
    }
    size_t i = t->home(e->key);
    while (true) {
      Entry* s = t->slots[i].load(std::memory_order_relaxed);
      if (s == nullptr) break;
      i = (i + 1) & t->mask;
    }
    t->slots[i].store(e, std::memory_order_release);
    ++t->used;
    live_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  // Writer. Unlinks E (which must be in the map); the caller then retires E. Never allocates.
  void erase(Entry* e) {
    Table* t = table_.load(std::memory_order_relaxed);
    for (size_t i = t->home(e->key);; i = (i + 1) & t->mask) {
      Entry* s = t->slots[i].load(std::memory_order_relaxed);
      if (s == nullptr) return;  // not in the map (caller error); nothing to do
      if (s == e) {
        t->slots[i].store(tombstone(), std::memory_order_seq_cst);  // the unlink
        live_.fetch_sub(1, std::memory_order_relaxed);
        // A tombstone followed by an empty slot ends every probe that reaches it one step later
        // anyway, so it can become empty itself (and so can the tombstones before it): a reader
        // that sees the empty slot stops where it would have stopped. This keeps churn (set and
        // remove of many objects) from filling the array with tombstones that lengthen probes.
        while (t->slots[(i + 1) & t->mask].load(std::memory_order_relaxed) == nullptr &&
               t->slots[i].load(std::memory_order_relaxed) == tombstone()) {
          t->slots[i].store(nullptr, std::memory_order_seq_cst);
          --t->used;
          i = (i - 1) & t->mask;
        }
        return;
      }
    }
  }

  // Writer (or with no concurrent writer). Calls FN(entry) for every entry; FN may not modify
  // the map. Use erase() afterwards for the entries FN selected.
  template <class Fn>
  void for_each(Fn&& fn) const {
    const Table* t = table_.load(std::memory_order_acquire);
    for (size_t i = 0; i <= t->mask; ++i) {
      Entry* e = t->slots[i].load(std::memory_order_acquire);
      if (e != nullptr && e != tombstone()) fn(e);
    }
  }

  // Writer. Frees the arrays that no reader can still be probing. Called by the owner after writes.
  void reclaim() {
    retired_.reclaim([](Table* t) { Table::destroy(t); });
  }

  // Any thread: a snapshot of the number of entries.
  size_t size() const { return live_.load(std::memory_order_relaxed); }
  // Writer: the current array size (for tests of growth).
  size_t capacity() const { return table_.load(std::memory_order_relaxed)->capacity(); }
  // Writer: arrays retired and not yet freed (for tests of reclamation).
  size_t retired_tables() const { return retired_.size(); }

 private:
  struct Table {
    size_t mask;  // capacity - 1 (capacity is a power of two, >= 8)
    int shift;    // 64 - log2(capacity): Fibonacci hashing keeps the high bits of key * phi
    size_t used;  // entries + tombstones (writer-only)
    std::atomic<Entry*>* slots;

    size_t capacity() const { return mask + 1; }
    size_t home(int32_t key) const {
      uint64_t h = static_cast<uint64_t>(static_cast<uint32_t>(key)) * 0x9E3779B97F4A7C15ull;
      return static_cast<size_t>(h >> shift);
    }

    static Table* create(size_t capacity) {
      Table* t = new (std::nothrow) Table{capacity - 1, 64 - log2(capacity), 0, nullptr};
      if (t == nullptr) return nullptr;
      t->slots = new (std::nothrow) std::atomic<Entry*>[capacity]();
      if (t->slots == nullptr) {
        delete t;
        return nullptr;
      }
      return t;
    }
    static void destroy(Table* t) {
      if (t == nullptr) return;
      delete[] t->slots;
      delete t;
    }
    static int log2(size_t v) {
      int n = 0;
      while ((size_t{1} << n) < v) ++n;
      return n;
    }
  };

  static Entry* tombstone() {
    alignas(Entry) static char marker;  // an address no entry can have
    return reinterpret_cast<Entry*>(&marker);
  }

  // A power of two that holds N entries at most half full.
  static size_t capacity_for(size_t n) {
    size_t c = 8;
    while (c < 2 * n) c *= 2;
    return c;
  }

  // Copies the live entries into a new array sized for NEEDED entries (at most 1/4 full after a
  // growth, so that growth is amortised), publishes it and retires the old one.
  Table* rebuild(size_t needed) {
    Table* old = table_.load(std::memory_order_relaxed);
    size_t cap = capacity_for(2 * needed);
    if (cap < min_capacity_) cap = min_capacity_;
    Table* t = Table::create(cap);
    if (t == nullptr) return nullptr;
    for (size_t i = 0; i <= old->mask; ++i) {
      Entry* e = old->slots[i].load(std::memory_order_relaxed);
      if (e == nullptr || e == tombstone()) continue;
      size_t j = t->home(e->key);
      while (t->slots[j].load(std::memory_order_relaxed) != nullptr) j = (j + 1) & t->mask;
      t->slots[j].store(e, std::memory_order_relaxed);
      ++t->used;
    }
    table_.store(t, std::memory_order_seq_cst);  // publishes every slot above; unlinks the old array
    retired_.retire(old);
    return t;
  }

  const size_t min_capacity_;
  std::atomic<Table*> table_{nullptr};
  std::atomic<size_t> live_{0};
  RetireList<Table*> retired_;
};

}  // namespace jvmkit
