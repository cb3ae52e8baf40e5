// The weight of a sample of the JVM's events: what one sampled allocation stands for.
#pragma once

#include <cstdint>

namespace jvmkit::prof {

// HotSpot's heap sampler picks the allocations it reports as a Poisson process over allocated
// bytes: the gaps between samples are exponentially distributed with mean INTERVAL. An object of
// SIZE bytes is sampled with probability p = 1 - exp(-SIZE/INTERVAL), so SIZE/p is an unbiased
// estimate of the bytes it stands for: ~INTERVAL for objects much smaller than it, ~SIZE for
// objects much larger (humongous arrays). INTERVAL 0 samples every allocation: SIZE.
int64_t alloc_sample_weight(int64_t size, int64_t interval);

}  // namespace jvmkit::prof
