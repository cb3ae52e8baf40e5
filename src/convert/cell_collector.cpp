#include "convert/cell_collector.hpp"

#include <algorithm>

namespace jvmkit::convert {

void CellCollector::add(int64_t time_ns, uint32_t node, int64_t count, int64_t weight) {
  const int64_t cell = time_ns / cell_ns_;
  first_ = std::min(first_, cell);
  last_ = std::max(last_, cell);
  Value& v = entries_[Key{cell, node}];
  v.count += count;
  v.weight += weight;
  if (last_ - first_ >= kMaxCells || entries_.size() > kMaxEntries) coarsen();
}

// Doubles the cells' length until the recording fits again, merging their entries.
void CellCollector::coarsen() {
  while (last_ - first_ >= kMaxCells || entries_.size() > kMaxEntries) {
    cell_ns_ *= 2;
    std::unordered_map<Key, Value, KeyHash> merged;
    merged.reserve(entries_.size() / 2 + 1);
    for (const auto& [key, value] : entries_) {
      Value& v = merged[Key{key.cell / 2, key.node}];
      v.count += value.count;
      v.weight += value.weight;
    }
    entries_.swap(merged);
    first_ /= 2;
    last_ /= 2;
    if (entries_.size() > kMaxEntries && last_ == first_) break;  // one cell: nothing more to merge
  }
}

prof::TimeCells CellCollector::finish() const {
  prof::TimeCells out;
  out.cell_ns = cell_ns_;
  if (entries_.empty()) return out;
  out.start_ns = first_ * cell_ns_;
  out.cells = static_cast<uint32_t>(last_ - first_ + 1);
  out.entries.reserve(entries_.size());
  for (const auto& [key, value] : entries_) {
    out.entries.push_back({static_cast<uint32_t>(key.cell - first_), key.node, value.count, value.weight});
  }
  std::sort(out.entries.begin(), out.entries.end(),
            [](const auto& a, const auto& b) { return a.cell != b.cell ? a.cell < b.cell : a.node < b.node; });
  return out;
}

}  // namespace jvmkit::convert
