#include "profiler/recording/timeline.hpp"

#include <utility>

namespace jvmkit::prof {

uint32_t Timeline::thread(int64_t key, const std::function<SampleThread()>& make) {
  auto it = thread_ids_.find(key);
  if (it != thread_ids_.end()) return it->second;
  const auto index = static_cast<uint32_t>(threads_.size());
  threads_.push_back(make());
  thread_ids_.emplace(key, index);
  return index;
}

void Timeline::add(const TimedSample& sample) {
  if (samples_.size() >= kMaxSamples) {
    dropped_++;
    return;
  }
  samples_.push_back(sample);
}

std::vector<TimedSample> Timeline::take_samples() { return std::exchange(samples_, {}); }

}  // namespace jvmkit::prof
