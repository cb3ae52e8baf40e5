#include "convert/cell_collector.hpp"

#include <algorithm>

namespace jvmkit::convert {

namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

}  // namespace

void CellCollector::add(int64_t time_ns, uint32_t node, int64_t count, int64_t weight) {
  const int64_t cell = floor_div(time_ns, cell_ns_);
  first_ = std::min(first_, cell);
  last_ = std::max(last_, cell);
  Value& total = totals_[cell];
  total.count += count;
  total.weight += weight;
  Value& v = entries_[Key{floor_div(cell, group_), node}];
  v.count += count;
  v.weight += weight;
  if (last_ - first_ >= max_cells_) longer_cells();
  if (entries_.size() > max_entries_) larger_groups();
}

// Doubles the cells' length until the recording's span fits, merging their totals and stacks.
void CellCollector::longer_cells() {
  while (last_ - first_ >= max_cells_) {
    cell_ns_ *= 2;
    std::unordered_map<int64_t, Value> totals;
    for (const auto& [cell, value] : totals_) {
      Value& v = totals[floor_div(cell, 2)];
      v.count += value.count;
      v.weight += value.weight;
    }
    totals_.swap(totals);
    first_ = floor_div(first_, 2);
    last_ = floor_div(last_, 2);
    // A group of cells twice as long: the same groups of stacks span twice the time.
    if (group_ > 1) {
      group_ /= 2;
    } else {
      std::unordered_map<Key, Value, KeyHash> merged;
      for (const auto& [key, value] : entries_) {
        Value& v = merged[Key{floor_div(key.group, 2), key.node}];
        v.count += value.count;
        v.weight += value.weight;
      }
      entries_.swap(merged);
    }
  }
}

// Doubles the groups of cells the stacks are kept for until they fit.
void CellCollector::larger_groups() {
  while (entries_.size() > max_entries_ && group_ < max_cells_) {
    group_ *= 2;
    std::unordered_map<Key, Value, KeyHash> merged;
    merged.reserve(entries_.size() / 2 + 1);
    for (const auto& [key, value] : entries_) {
      Value& v = merged[Key{floor_div(key.group, 2), key.node}];
      v.count += value.count;
      v.weight += value.weight;
    }
    entries_.swap(merged);
  }
}

prof::TimeCells CellCollector::finish() const {
  prof::TimeCells out;
  out.cell_ns = cell_ns_;
  if (totals_.empty()) return out;
  out.start_ns = first_ * cell_ns_;
  out.cells = static_cast<uint32_t>(last_ - first_ + 1);
  out.group = static_cast<uint32_t>(group_);
  // The page's group of cell i (from 0): (i + group_offset) / group.
  out.group_offset = static_cast<uint32_t>(first_ - floor_div(first_, group_) * group_);
  out.totals.assign(out.cells, {0, 0});
  for (const auto& [cell, value] : totals_)
    out.totals[static_cast<size_t>(cell - first_)] = {value.count, value.weight};
  const int64_t first_group = floor_div(first_, group_);
  out.entries.reserve(entries_.size());
  for (const auto& [key, value] : entries_) {
    out.entries.push_back({static_cast<uint32_t>(key.group - first_group), key.node, value.count, value.weight});
  }
  std::sort(out.entries.begin(), out.entries.end(),
            [](const auto& a, const auto& b) { return a.cell != b.cell ? a.cell < b.cell : a.node < b.node; });
  return out;
}

}  // namespace jvmkit::convert
