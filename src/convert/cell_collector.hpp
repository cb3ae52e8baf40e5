// CellCollector: an event's samples in time, as the HTML page's heatmap shows them (TimeCells):
// per (cell of time, stack) the samples and their weight.
//
// Cells are 20 ms. Bounded: a recording longer than 10 minutes (30,000 cells), or one with more
// than 1,048,576 distinct (cell, stack) pairs, gets cells twice as long, and again, until it fits;
// the page says how long its cells are.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "profiler/writers.hpp"

namespace jvmkit::convert {

class CellCollector {
 public:
  static constexpr int64_t kCellNs = 20'000'000;
  static constexpr int64_t kMaxCells = 30'000;
  static constexpr size_t kMaxEntries = size_t{1} << 20;

  void add(int64_t time_ns, uint32_t node, int64_t count, int64_t weight);
  // The cells, numbered from the first sample's; empty when no sample was added.
  prof::TimeCells finish() const;
  int64_t cell_ns() const { return cell_ns_; }
  bool empty() const { return entries_.empty(); }

 private:
  struct Key {
    int64_t cell;  // time / cell_ns
    uint32_t node;
    bool operator==(const Key& o) const { return cell == o.cell && node == o.node; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return static_cast<size_t>((static_cast<uint64_t>(k.cell) * 0x9E3779B97F4A7C15ull) ^ k.node);
    }
  };
  struct Value {
    int64_t count = 0;
    int64_t weight = 0;
  };
  void coarsen();

  int64_t cell_ns_ = kCellNs;
  int64_t first_ = INT64_MAX;  // in cells
  int64_t last_ = INT64_MIN;
  std::unordered_map<Key, Value, KeyHash> entries_;
};

}  // namespace jvmkit::convert
