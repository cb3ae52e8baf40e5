// The weight of a sampled allocation: the bytes it stands for under Poisson sampling.
#include "profiler/events/sample_weight.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace jvmkit::prof {
namespace {

constexpr int64_t kInterval = 512 * 1024;

TEST(AllocWeight, SmallObjectsStandForTheIntervalHugeOnesForTheirSize) {
  // s/p with p = 1 - exp(-s/I): about I (plus s/2) when s << I, about s when s >> I.
  EXPECT_NEAR(static_cast<double>(alloc_sample_weight(32, kInterval)), kInterval + 16, 1);
  EXPECT_EQ(alloc_sample_weight(4 << 20, kInterval), (4 << 20) + 1408);  // p = 1 - e^-8
  EXPECT_NEAR(static_cast<double>(alloc_sample_weight(kInterval, kInterval)), kInterval / (1 - std::exp(-1.0)), 1);
  EXPECT_EQ(alloc_sample_weight(1000, 0), 1000);  // every allocation sampled
  EXPECT_EQ(alloc_sample_weight(0, kInterval), 0);
}

// What the weights are for: summed over the samples a Poisson sampler takes, they estimate the
// bytes allocated, whatever the sizes. Simulated here with exponential gaps, as HotSpot draws them.
// 512 MB at a 32 KiB interval: ~16,000 samples of the small sizes, so 3% is about 4 standard
// deviations; a weight of SIZE alone (or of the interval alone) misses by far more.
TEST(AllocWeight, WeightsOfPoissonSamplesAddUpToTheBytesAllocated) {
  constexpr int64_t kSmallInterval = 32 * 1024;
  std::mt19937_64 random(5);
  std::exponential_distribution<double> gap(1.0 / kSmallInterval);
  const int64_t sizes[] = {32, 4016, 128 * 1024, 4 << 20};
  for (int64_t size : sizes) {
    double until_sample = gap(random);
    int64_t allocated = 0;
    double estimate = 0;
    while (allocated < (int64_t{512} << 20)) {
      allocated += size;
      until_sample -= static_cast<double>(size);
      if (until_sample <= 0) {  // this allocation crossed the sample point: sampled once
        estimate += static_cast<double>(alloc_sample_weight(size, kSmallInterval));
        until_sample = gap(random);
      }
    }
    EXPECT_NEAR(estimate / static_cast<double>(allocated), 1.0, 0.03) << "objects of " << size << " bytes";
  }
}

}  // namespace
}  // namespace jvmkit::prof
