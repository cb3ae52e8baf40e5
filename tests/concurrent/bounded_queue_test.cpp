#include "concurrent/bounded_queue.hpp"

#include "concurrent/index_stack.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace jvmkit {
namespace {

TEST(BoundedQueue, RoundsCapacityUpToAPowerOfTwo) {
  EXPECT_EQ(BoundedQueue<int>(5).capacity(), 8u);
  EXPECT_EQ(BoundedQueue<int>(8).capacity(), 8u);
  EXPECT_EQ(BoundedQueue<int>(0).capacity(), 2u);
}

TEST(BoundedQueue, IsFifoAndNumbersPushesInOrder) {
  BoundedQueue<int> q(4);
  uint64_t ticket = 99;
  for (int i = 0; i < 4; i++) {
    ASSERT_TRUE(q.push(i * 10, &ticket));
    EXPECT_EQ(ticket, static_cast<uint64_t>(i));
  }
  int v = 0;
  for (int i = 0; i < 4; i++) {
    ASSERT_TRUE(q.pop(&v, &ticket));
    EXPECT_EQ(v, i * 10);
    EXPECT_EQ(ticket, static_cast<uint64_t>(i));
  }
  EXPECT_EQ(q.push_position(), 4u);
  EXPECT_EQ(q.pop_position(), 4u);
}

TEST(BoundedQueue, RefusesPushWhenFullAndPopWhenEmpty) {
  BoundedQueue<int> q(2);
  int v = 0;
  EXPECT_FALSE(q.pop(&v));
  EXPECT_TRUE(q.push(1));
  EXPECT_TRUE(q.push(2));
  EXPECT_FALSE(q.push(3));
  EXPECT_TRUE(q.pop(&v));
  EXPECT_EQ(v, 1);
  EXPECT_TRUE(q.push(3));  // the freed cell is reused after wrap-around
  EXPECT_TRUE(q.pop(&v));
  EXPECT_EQ(v, 2);
  EXPECT_TRUE(q.pop(&v));
  EXPECT_EQ(v, 3);
  EXPECT_FALSE(q.pop(&v));
}

// The stack walker's use: many producers (handlers) take indices from a free list (an IndexStack:
// a ring would make a release fail while a preempted producer still holds its cell) and publish
// them to this ready queue; one consumer takes them in order and frees them. Every index is accounted for,
// none is handed out twice, and each producer's items arrive in the order it pushed them.
TEST(BoundedQueue, ConcurrentProducersAndConsumerLoseNothing) {
  constexpr uint32_t kSlots = 64;
  constexpr int kProducers = 4;
  constexpr int kPerProducer = 20000;
  IndexStack free_list(kSlots);
  BoundedQueue<uint32_t> ready(kSlots);
  for (uint32_t i = 0; i < kSlots; i++) free_list.push(i);
  struct Slot {
    std::atomic<int> owner{-1};
    int producer = 0;
    int seq = 0;
  };
  std::vector<Slot> slots(kSlots);
  std::atomic<int> double_owned{0};
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; p++) {
    producers.emplace_back([&, p] {
      for (int n = 0; n < kPerProducer;) {
        uint32_t index;
        if (!free_list.pop(&index)) {
          std::this_thread::yield();
          continue;
        }
        int expected = -1;
        if (!slots[index].owner.compare_exchange_strong(expected, p)) double_owned++;
        slots[index].producer = p;
        slots[index].seq = n++;
        slots[index].owner.store(-1);
        while (!ready.push(index)) std::this_thread::yield();
      }
    });
  }
  std::vector<int> next_seq(kProducers, 0);
  int taken = 0;
  int out_of_order = 0;
  while (taken < kProducers * kPerProducer) {
    uint32_t index;
    if (!ready.pop(&index)) {
      std::this_thread::yield();
      continue;
    }
    Slot& s = slots[index];
    if (s.seq != next_seq[s.producer]) out_of_order++;
    next_seq[s.producer] = s.seq + 1;
    taken++;
    free_list.push(index);
  }
  for (auto& t : producers) t.join();
  EXPECT_EQ(double_owned.load(), 0);
  EXPECT_EQ(out_of_order, 0);
  uint32_t index;
  int remaining = 0;
  while (free_list.pop(&index)) remaining++;
  EXPECT_EQ(remaining, static_cast<int>(kSlots));
}

}  // namespace
}  // namespace jvmkit
