#include "convert/cell_collector.hpp"

#include <gtest/gtest.h>

namespace jvmkit::convert {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kStart = 1'796'469'000'000 * kMs;

// A 10-minute recording keeps 20 ms cells for its heatmap, however many stacks it has: the
// stacks' groups grow instead, within their bound (here 20,000 pairs rather than a million, to
// keep the test short), and every sample is in the cells' totals.
TEST(CellCollector, TenMinutesOfManyStacksKeep20MsCells) {
  constexpr size_t kEntries = 20'000;
  CellCollector c(CellCollector::kMaxCells, kEntries);
  int64_t samples = 0;
  for (int64_t t = 0; t < 600'000 * kMs; t += 10 * kMs) {  // 2 samples a cell, of 5,000 stacks
    c.add(kStart + t, static_cast<uint32_t>(samples % 5000), 1, 10);
    samples++;
  }
  const prof::TimeCells cells = c.finish();
  EXPECT_EQ(cells.cell_ns, 20 * kMs);
  EXPECT_EQ(cells.cells, 30'000u);
  EXPECT_GT(cells.group, 1u);
  EXPECT_LE(cells.entries.size(), kEntries);
  int64_t in_totals = 0, in_entries = 0;
  for (const auto& [count, weight] : cells.totals) in_totals += count;
  for (const auto& e : cells.entries) {
    in_entries += e.count;
    EXPECT_LE(e.cell, (cells.cells - 1 + cells.group_offset) / cells.group);
  }
  EXPECT_EQ(in_totals, samples);
  EXPECT_EQ(in_entries, samples);
}

TEST(CellCollector, ALongerRecordingGetsLongerCells) {
  CellCollector c;
  for (int64_t t = 0; t < 1'200'000 * kMs; t += 100 * kMs) c.add(kStart + t, 1, 1, 1);
  const prof::TimeCells cells = c.finish();
  EXPECT_EQ(cells.cell_ns, 40 * kMs);
  EXPECT_LE(cells.cells, 30'000u);
  EXPECT_EQ(cells.group, 1u);
  EXPECT_EQ(cells.start_ns % (40 * kMs), 0);
}

TEST(CellCollector, CellsCountFromTheFirstSample) {
  CellCollector c;
  c.add(kStart + 45 * kMs, 7, 1, 5);
  c.add(kStart + 5 * kMs, 7, 2, 6);
  const prof::TimeCells cells = c.finish();
  EXPECT_EQ(cells.start_ns, kStart);
  ASSERT_EQ(cells.cells, 3u);
  EXPECT_EQ(cells.totals[0], (std::pair<int64_t, int64_t>{2, 6}));
  EXPECT_EQ(cells.totals[2], (std::pair<int64_t, int64_t>{1, 5}));
}

}  // namespace
}  // namespace jvmkit::convert
