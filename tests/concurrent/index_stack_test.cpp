#include "concurrent/index_stack.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace jvmkit {
namespace {

TEST(IndexStack, IsLifoAndReportsEmpty) {
  IndexStack stack(4);
  uint32_t index = 99;
  EXPECT_FALSE(stack.pop(&index));
  for (uint32_t i = 0; i < 4; i++) stack.push(i);
  for (uint32_t i = 4; i-- > 0;) {
    ASSERT_TRUE(stack.pop(&index));
    EXPECT_EQ(index, i);
  }
  EXPECT_FALSE(stack.pop(&index));
}

// The free-list use: threads take indices, own them exclusively for a while, give them back. No
// index is ever owned twice, and none is lost: at the end all of them are back on the stack.
TEST(IndexStack, ConcurrentTakeAndGiveBackLosesNothing) {
  constexpr uint32_t kSlots = 8;  // few slots, many threads: maximal contention and reuse (ABA)
  constexpr int kThreads = 4;
  constexpr int kRounds = 50000;
  IndexStack stack(kSlots);
  for (uint32_t i = 0; i < kSlots; i++) stack.push(i);
  std::vector<std::atomic<int>> owner(kSlots);
  for (auto& o : owner) o.store(-1);
  std::atomic<int> double_owned{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      for (int n = 0; n < kRounds;) {
        uint32_t index;
        if (!stack.pop(&index)) {
          std::this_thread::yield();
          continue;
        }
        int expected = -1;
        if (!owner[index].compare_exchange_strong(expected, t)) double_owned++;
        owner[index].store(-1);
        stack.push(index);
        n++;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(double_owned.load(), 0);
  std::vector<bool> seen(kSlots, false);
  uint32_t index;
  uint32_t remaining = 0;
  while (stack.pop(&index)) {
    ASSERT_LT(index, kSlots);
    EXPECT_FALSE(seen[index]) << "index " << index << " was on the stack twice";
    seen[index] = true;
    remaining++;
  }
  EXPECT_EQ(remaining, kSlots);
}

#if defined(JVMKIT_DEBUG_CHECKS)
// An index at or past the capacity has no successor slot: pushing it would write past the array.
TEST(IndexStackDeathTest, PushingAnIndexPastTheCapacityAborts) {
  IndexStack stack(4);
  EXPECT_DEATH(stack.push(4), "jvmkit: debug check failed: index < capacity_");
}
#endif

}  // namespace
}  // namespace jvmkit
