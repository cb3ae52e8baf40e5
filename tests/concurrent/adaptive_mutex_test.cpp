#include "concurrent/adaptive_mutex.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <thread>
#include <vector>

namespace jvmkit {
namespace {

TEST(AdaptiveMutex, TryLockFailsWhileHeld) {
  AdaptiveMutex m;
  m.lock();
  bool other = true;
  std::thread t([&] { other = m.try_lock(); });
  t.join();
  EXPECT_FALSE(other);
  m.unlock();
  ASSERT_TRUE(m.try_lock());
  m.unlock();
}

// A plain counter, updated by several threads: a lost update (or a TSan report) if the mutex
// ever let two of them in at once.
TEST(AdaptiveMutex, ExcludesUnderContention) {
  AdaptiveMutex m;
  long counter = 0;
  constexpr int kThreads = 4;
  constexpr int kIncrements = 100000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements; ++i) {
        std::lock_guard<AdaptiveMutex> lock(m);
        long v = counter;
        if (i % 1000 == 0) std::this_thread::yield();  // widen the window a broken lock would lose in
        counter = v + 1;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(counter, long{kThreads} * kIncrements);
}

}  // namespace
}  // namespace jvmkit
