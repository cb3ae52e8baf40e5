// CellCollector: an event's samples in time, as the HTML page's heatmap shows them (TimeCells).
//
// Two grains, each bounded on its own:
//   - the heatmap's cells: 20 ms, the samples (and weight) of each; a recording longer than 10
//     minutes (30,000 cells) gets cells twice as long, and again, until it fits;
//   - the stacks of the cells, for the flame graph of a range: per (group of cells, stack) the
//     samples. A group is one cell until there are more than 1,048,576 distinct pairs; then
//     groups of 2 cells, 4, ... until they fit. A range then shows the stacks of the groups it
//     touches, while the heatmap keeps its 20 ms cells.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "profiler/outputs/writers.hpp"

namespace jvmkit::convert {

class CellCollector {
 public:
  static constexpr int64_t kCellNs = 20'000'000;
  static constexpr int64_t kMaxCells = 30'000;
  static constexpr size_t kMaxEntries = size_t{1} << 20;

  // The bounds (the constants above, unless a test asks for others).
  explicit CellCollector(int64_t max_cells = kMaxCells, size_t max_entries = kMaxEntries)
      : max_cells_(max_cells), max_entries_(max_entries) {}

  void add(int64_t time_ns, uint32_t node, int64_t count, int64_t weight);
  // The cells, numbered from the first sample's; empty when no sample was added.
  prof::TimeCells finish() const;
  int64_t cell_ns() const { return cell_ns_; }
  int64_t group() const { return group_; }
  bool empty() const { return totals_.empty(); }

 private:
  struct Key {
    int64_t group;  // time / (cell_ns * group)
    uint32_t node;
    bool operator==(const Key& o) const { return group == o.group && node == o.node; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return static_cast<size_t>((static_cast<uint64_t>(k.group) * 0x9E3779B97F4A7C15ull) ^ k.node);
    }
  };
  struct Value {
    int64_t count = 0;
    int64_t weight = 0;
  };
  void longer_cells();
  void larger_groups();

  int64_t max_cells_;
  size_t max_entries_;
  int64_t cell_ns_ = kCellNs;
  int64_t group_ = 1;          // cells per group of stacks
  int64_t first_ = INT64_MAX;  // in cells
  int64_t last_ = INT64_MIN;
  std::unordered_map<int64_t, Value> totals_;  // by cell
  std::unordered_map<Key, Value, KeyHash> entries_;
};

}  // namespace jvmkit::convert
