#include "profiler/context/context_slots.hpp"

#include <bit>

namespace jvmkit::prof {

ContextSlots::ContextSlots(uint32_t capacity)
    : mask_(std::bit_ceil(std::max<uint32_t>(capacity, 64)) - 1), slots_(new Slot[mask_ + 1]) {}

uint32_t ContextSlots::home(int64_t key) const noexcept {
  // Fibonacci hashing: thread ids are small consecutive numbers; the top bits spread them.
  return static_cast<uint32_t>((static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> 32) & mask_;
}

// Zeroes the cell of slot INDEX and gives it to KEY: the cell is whole before a reader can find it
// by its key.
void ContextSlots::claim(uint32_t index, int64_t key) {
  Slot& s = slots_[index];
  s.generation++;
  s.cell.version.store(0, std::memory_order_relaxed);
  for (auto& copy : s.cell.copies) {
    for (auto& v : copy) v.store(0, std::memory_order_relaxed);
  }
  s.cell.token.store(static_cast<int64_t>(uint64_t{index} << 32 | s.generation), std::memory_order_relaxed);
  s.key.store(key, std::memory_order_release);
  counts_.acquired++;
}

ContextCell* ContextSlots::acquire(int64_t key, int64_t* token) {
  if (key == kFree || key == kTombstone) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t free_at = -1;
  uint32_t i = home(key);
  for (uint32_t probe = 0; probe < kMaxProbe; probe++, i = (i + 1) & mask_) {
    const int64_t k = slots_[i].key.load(std::memory_order_relaxed);
    if (k == key) {
      // The key's earlier thread ended without a release: its slot is this thread's now.
      counts_.taken_over++;
      counts_.live--;
      free_at = i;
      break;
    }
    if (k == kTombstone && free_at < 0) free_at = i;
    if (k == kFree) {
      if (free_at < 0) free_at = i;
      break;
    }
  }
  if (free_at < 0) {
    counts_.overflowed++;
    return nullptr;
  }
  claim(static_cast<uint32_t>(free_at), key);
  counts_.live++;
  *token = slots_[free_at].cell.token.load(std::memory_order_relaxed);
  return &slots_[free_at].cell;
}

bool ContextSlots::release(int64_t token) {
  const uint64_t index = static_cast<uint64_t>(token) >> 32;
  const auto generation = static_cast<uint32_t>(token);
  std::lock_guard<std::mutex> lock(mutex_);
  if (index > mask_) return false;
  Slot& s = slots_[index];
  const int64_t k = s.key.load(std::memory_order_relaxed);
  if (s.generation != generation || k == kFree || k == kTombstone) {
    counts_.stale++;
    return false;
  }
  s.key.store(kTombstone, std::memory_order_release);
  counts_.live--;
  counts_.released++;
  return true;
}

bool ContextSlots::release_key(int64_t key) {
  if (key == kFree || key == kTombstone) return false;
  int64_t token = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    uint32_t i = home(key);
    for (uint32_t probe = 0; probe < kMaxProbe; probe++, i = (i + 1) & mask_) {
      const int64_t k = slots_[i].key.load(std::memory_order_relaxed);
      if (k == kFree) return false;
      if (k == key) {
        token = slots_[i].cell.token.load(std::memory_order_relaxed);
        break;
      }
    }
  }
  return token != 0 && release(token);
}

bool ContextSlots::read(int64_t key, SampleContext* out) const noexcept {
  if (key == kFree || key == kTombstone) return false;
  uint32_t i = home(key);
  for (uint32_t probe = 0; probe < kMaxProbe; probe++, i = (i + 1) & mask_) {
    const Slot& s = slots_[i];
    const int64_t k = s.key.load(std::memory_order_acquire);
    if (k == kFree) return false;
    if (k != key) continue;
    const int64_t version = s.cell.version.load(std::memory_order_acquire);
    const auto& copy = s.cell.copies[version & 1];
    out->label_set = static_cast<uint32_t>(copy[0].load(std::memory_order_relaxed));
    out->trace_high = static_cast<uint64_t>(copy[1].load(std::memory_order_relaxed));
    out->trace_low = static_cast<uint64_t>(copy[2].load(std::memory_order_relaxed));
    out->span = static_cast<uint64_t>(copy[3].load(std::memory_order_relaxed));
    return true;
  }
  return false;
}

ContextSlots::Counts ContextSlots::counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

uint32_t SampleContextPool::put(const SampleContext& context) noexcept {
  // Start at a rotating word so that concurrent handlers spread over the bitmap.
  const uint32_t start = cursor_.fetch_add(1, std::memory_order_relaxed);
  for (uint32_t n = 0; n < 2 * kWords; n++) {
    std::atomic<uint64_t>& word = used_[(start + n) % kWords];
    uint64_t bits = word.load(std::memory_order_relaxed);
    if (bits == ~uint64_t{0}) continue;
    const int bit = std::countr_zero(~bits);
    if (!word.compare_exchange_strong(bits, bits | (uint64_t{1} << bit), std::memory_order_acquire)) continue;
    Record& r = records_[((start + n) % kWords) * 64 + static_cast<uint32_t>(bit)];
    r.label_set.store(context.label_set, std::memory_order_relaxed);
    r.trace_high.store(context.trace_high, std::memory_order_relaxed);
    r.trace_low.store(context.trace_low, std::memory_order_relaxed);
    r.span.store(context.span, std::memory_order_relaxed);
    return ((start + n) % kWords) * 64 + static_cast<uint32_t>(bit) + 1;
  }
  full_.fetch_add(1, std::memory_order_relaxed);
  return 0;
}

SampleContext SampleContextPool::take(uint32_t record) noexcept {
  SampleContext out;
  if (record == 0 || record > kRecords) return out;
  const uint32_t index = record - 1;
  const Record& r = records_[index];
  out.label_set = static_cast<uint32_t>(r.label_set.load(std::memory_order_relaxed));
  out.trace_high = r.trace_high.load(std::memory_order_relaxed);
  out.trace_low = r.trace_low.load(std::memory_order_relaxed);
  out.span = r.span.load(std::memory_order_relaxed);
  used_[index / 64].fetch_and(~(uint64_t{1} << (index % 64)), std::memory_order_release);
  return out;
}

int64_t SampleContextPool::in_use() const {
  int64_t n = 0;
  for (const auto& word : used_) n += std::popcount(word.load(std::memory_order_relaxed));
  return n;
}

}  // namespace jvmkit::prof
