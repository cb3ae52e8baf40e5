#include "profiler/events/sample_weight.hpp"

#include <cmath>

namespace jvmkit::prof {

int64_t alloc_sample_weight(int64_t size, int64_t interval) {
  if (size <= 0) return 0;
  if (interval <= 0) return size;
  const double ratio = static_cast<double>(size) / static_cast<double>(interval);
  // -expm1(-x) is 1 - exp(-x) without the cancellation of small x.
  const double p = -std::expm1(-ratio);
  return p > 0 ? static_cast<int64_t>(std::llround(static_cast<double>(size) / p)) : interval;
}

}  // namespace jvmkit::prof
