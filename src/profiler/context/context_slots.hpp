// ContextSlots: each thread's current request context (label set, OpenTelemetry trace and span
// ids) in memory that the sampling signal handler reads without a lock, a JNI call or an
// allocation.
//
// Writers: org.jvmkit.JvmkitContext, in Java, through a direct ByteBuffer over the thread's
// ContextCell, with plain stores and one release store per change. A cell holds two copies of
// the context; a change fills the copy not in use and then flips `version`, whose low bit names
// the copy in use. The only readers of a cell are the handler (and the JVMTI event callbacks of
// alloc and lock) on the thread that writes it, so a reader that interrupted a change in the
// middle still finds the other copy whole: no retry loop, no sample lost or mislabelled.
//
// Keys: a slot belongs to a thread key (context_agent.hpp: the current Java thread's id where
// HotSpot keeps it, JDK 24 and later, which follows a virtual thread across its carriers; else the
// OS thread id). The table is open-addressed, its size fixed at construction, a lookup at most
// kMaxProbe slots. Registration and release take a mutex; lookups take nothing.
//
// Reclamation: a slot is freed by its token (the Java holder's Cleaner once the thread's holder is
// unreachable, or the agent's ThreadEnd), and a registration of a key that still has a slot takes
// that slot over (an OS id reused before the old thread's slot was freed). A token carries the
// slot's generation, so a late release of a taken-over slot frees nothing. Past the table's size
// (or kMaxProbe), acquire answers null and counts it: that thread's context is not recorded.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "base/signal_safe.hpp"

namespace jvmkit::prof {

// A sample's context, as read at the sample. Ids are OpenTelemetry's: a 128-bit trace id in two
// halves, a 64-bit span id; all zero when unset.
struct SampleContext {
  uint32_t label_set = 0;  // LabelSets id, 0: no labels
  uint64_t trace_high = 0;
  uint64_t trace_low = 0;
  uint64_t span = 0;
  JVMKIT_SIGNAL_SAFE bool empty() const noexcept {
    return label_set == 0 && trace_high == 0 && trace_low == 0 && span == 0;
  }
  bool has_span() const { return trace_high != 0 || trace_low != 0 || span != 0; }
};

// The part of a slot that Java writes. Byte offsets are JvmkitContext.java's: version at 0, copy c
// at 8 + 32 c (label set, trace high, trace low, span, 8 bytes each), the token at 72.
struct ContextCell {
  std::atomic<int64_t> version{0};
  std::atomic<int64_t> copies[2][4]{};
  std::atomic<int64_t> token{0};
};
static_assert(sizeof(ContextCell) == 80, "JvmkitContext.java's offsets");
static_assert(std::atomic<int64_t>::is_always_lock_free, "read in a signal handler");
constexpr size_t kContextCellBytes = sizeof(ContextCell);

class ContextSlots {
 public:
  static constexpr uint32_t kMaxProbe = 32;

  // CAPACITY slots (rounded up to a power of two, at least 64).
  explicit ContextSlots(uint32_t capacity);
  ContextSlots(const ContextSlots&) = delete;
  ContextSlots& operator=(const ContextSlots&) = delete;

  // The zeroed cell of KEY (not 0) and its token (*TOKEN); a slot KEY has already is taken over.
  // Null when no slot is free within kMaxProbe of KEY's place (counted as overflowed).
  ContextCell* acquire(int64_t key, int64_t* token);
  // Frees the slot of TOKEN, unless it was freed or taken over since. Returns whether it freed it.
  bool release(int64_t token);
  // Frees KEY's slot, if it has one.
  bool release_key(int64_t key);

  // SIGNAL SAFE. KEY's context, from the copy in use; false when KEY has no slot.
  JVMKIT_SIGNAL_SAFE bool read(int64_t key, SampleContext* out) const noexcept;

  struct Counts {
    int64_t live = 0;        // slots held now
    int64_t acquired = 0;    // registrations, take-overs included
    int64_t taken_over = 0;  // ... of a key that still had a slot
    int64_t released = 0;    // slots freed
    int64_t stale = 0;       // releases of a token no longer current (freed nothing)
    int64_t overflowed = 0;  // registrations refused: no free slot
  };
  Counts counts() const;
  uint32_t capacity() const { return mask_ + 1; }

 private:
  static constexpr int64_t kFree = 0;
  static constexpr int64_t kTombstone = INT64_MIN;  // freed: lookups go on past it

  struct alignas(128) Slot {
    ContextCell cell;
    std::atomic<int64_t> key{kFree};
    uint32_t generation = 0;  // guarded by mutex_
  };

  JVMKIT_SIGNAL_SAFE uint32_t home(int64_t key) const noexcept;
  void claim(uint32_t index, int64_t key);

  const uint32_t mask_;
  std::unique_ptr<Slot[]> slots_;
  mutable std::mutex mutex_;
  Counts counts_;  // guarded by mutex_
};

// The contexts of samples in flight: the handler puts a sample's context here and passes the
// record's number with its stack-trace request; the delivery callbacks take it back. A fixed pool
// of records claimed in a bitmap with CAS, so both ends are signal-safe. Past kRecords in flight,
// put answers 0 and counts it: that sample is delivered without its context.
class SampleContextPool {
 public:
  static constexpr uint32_t kRecords = 4096;

  // SIGNAL SAFE. The record number (1..kRecords) now holding CONTEXT, or 0 when all are in use.
  JVMKIT_SIGNAL_SAFE uint32_t put(const SampleContext& context) noexcept;
  // SIGNAL SAFE. The context of RECORD (a number put returned), which is freed; empty for 0.
  JVMKIT_SIGNAL_SAFE SampleContext take(uint32_t record) noexcept;

  int64_t full() const { return full_.load(std::memory_order_relaxed); }
  int64_t in_use() const;

 private:
  static constexpr uint32_t kWords = kRecords / 64;
  struct Record {
    std::atomic<uint64_t> label_set{0}, trace_high{0}, trace_low{0}, span{0};
  };
  std::atomic<uint64_t> used_[kWords]{};
  Record records_[kRecords];
  std::atomic<uint32_t> cursor_{0};
  std::atomic<int64_t> full_{0};
};

}  // namespace jvmkit::prof
