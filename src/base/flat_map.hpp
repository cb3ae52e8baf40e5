// A hash map in one array (open addressing, linear probing, a power-of-two capacity), for the
// per-frame look-ups of trace delivery: a std::unordered_map look-up there is a division by a
// prime and a chain of nodes, each a likely cache miss, and delivery does several per frame.
//
// Keys and values are copied in and moved on growth: pointers into the map do not survive an
// insert. No erase (the callers bound their maps with clear()). Not thread-safe; not signal safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace jvmkit {

template <typename Key, typename Value, typename Hash = std::hash<Key>, typename Equal = std::equal_to<Key>>
class FlatMap {
 public:
  // The value of KEY, or nullptr.
  const Value* find(const Key& key) const {
    if (size_ == 0) return nullptr;
    for (size_t i = home(key);; i = (i + 1) & mask()) {
      const Slot& slot = slots_[i];
      if (!slot.used) return nullptr;
      if (Equal{}(slot.key, key)) return &slot.value;
    }
  }
  Value* find(const Key& key) { return const_cast<Value*>(std::as_const(*this).find(key)); }

  // Sets KEY's value to VALUE unless KEY is there; returns the value KEY has now, and whether it
  // was added.
  std::pair<Value*, bool> insert(const Key& key, Value value) {
    // At most half full: probes stay short, and an empty slot always ends a search.
    if (2 * (size_ + 1) > slots_.size()) grow();
    for (size_t i = home(key);; i = (i + 1) & mask()) {
      Slot& slot = slots_[i];
      if (!slot.used) {
        slot = Slot{key, std::move(value), true};
        size_++;
        return {&slot.value, true};
      }
      if (Equal{}(slot.key, key)) return {&slot.value, false};
    }
  }

  // Sets KEY's value to VALUE, whether or not KEY was there.
  void assign(const Key& key, Value value) {
    auto [held, added] = insert(key, value);
    if (!added) *held = std::move(value);
  }

  // Forgets every entry; frees the array when FREE, else keeps it for the entries to come.
  void clear(bool free = false) {
    if (free) {
      std::vector<Slot>().swap(slots_);
    } else {
      for (Slot& slot : slots_) slot = Slot{};
    }
    size_ = 0;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The array's bytes.
  size_t bytes() const { return slots_.capacity() * sizeof(Slot); }

 private:
  struct Slot {
    Key key{};
    Value value{};
    bool used = false;
  };
  static constexpr size_t kFirstCapacity = 16;

  size_t mask() const { return slots_.size() - 1; }
  size_t home(const Key& key) const {
    // Mixed again: the callers' hashes of pointers and small integers have poor low bits.
    uint64_t h = static_cast<uint64_t>(Hash{}(key));
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return static_cast<size_t>(h) & mask();
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? kFirstCapacity : 2 * old.size(), Slot{});
    size_ = 0;
    for (Slot& slot : old) {
      if (slot.used) insert(slot.key, std::move(slot.value));
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace jvmkit
