// ContextSlots and SampleContextPool: what a signal handler reads of a thread's context, the
// slots' reclamation and bounds, and the records that carry a sample's context to its delivery.
#include "profiler/context/context_slots.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

namespace jvmkit::prof {
namespace {

// What JvmkitContext.ThreadState.publish does, in C++: the copy not in use, then the flip.
void publish(ContextCell* cell, const SampleContext& c) {
  std::atomic_signal_fence(std::memory_order_seq_cst);  // Java's storeStoreFence
  const int64_t next = cell->version.load(std::memory_order_relaxed) + 1;
  auto& copy = cell->copies[next & 1];
  copy[0].store(c.label_set, std::memory_order_relaxed);
  copy[1].store(static_cast<int64_t>(c.trace_high), std::memory_order_relaxed);
  copy[2].store(static_cast<int64_t>(c.trace_low), std::memory_order_relaxed);
  copy[3].store(static_cast<int64_t>(c.span), std::memory_order_relaxed);
  cell->version.store(next, std::memory_order_release);
}

TEST(ContextSlots, ReadsTheCopyInUse) {
  ContextSlots slots(64);
  int64_t token = 0;
  ContextCell* cell = slots.acquire(42, &token);
  ASSERT_NE(cell, nullptr);
  EXPECT_EQ(cell->token.load(), token);
  SampleContext read;
  ASSERT_TRUE(slots.read(42, &read));
  EXPECT_TRUE(read.empty());  // a new slot holds no context
  publish(cell, {7, 1, 2, 3});
  ASSERT_TRUE(slots.read(42, &read));
  EXPECT_EQ(read.label_set, 7u);
  EXPECT_EQ(read.trace_high, 1u);
  EXPECT_EQ(read.trace_low, 2u);
  EXPECT_EQ(read.span, 3u);
  publish(cell, {9, 0, 0, 0});
  ASSERT_TRUE(slots.read(42, &read));
  EXPECT_EQ(read.label_set, 9u);
  EXPECT_FALSE(read.has_span());
  EXPECT_FALSE(slots.read(43, &read));
  EXPECT_FALSE(slots.read(0, &read));
}

TEST(ContextSlots, ReleaseByTokenAndStaleTokensFreeNothing) {
  ContextSlots slots(64);
  int64_t first = 0;
  ContextCell* cell = slots.acquire(5, &first);
  ASSERT_NE(cell, nullptr);
  publish(cell, {3, 0, 0, 0});
  // The same key again (an OS id reused before the old thread's slot was freed): taken over,
  // zeroed, with a new token; the old token frees nothing.
  int64_t second = 0;
  ASSERT_EQ(slots.acquire(5, &second), cell);
  EXPECT_NE(second, first);
  SampleContext read;
  ASSERT_TRUE(slots.read(5, &read));
  EXPECT_TRUE(read.empty());
  EXPECT_FALSE(slots.release(first));
  EXPECT_TRUE(slots.read(5, &read));
  EXPECT_TRUE(slots.release(second));
  EXPECT_FALSE(slots.read(5, &read));
  EXPECT_FALSE(slots.release(second));
  const ContextSlots::Counts c = slots.counts();
  EXPECT_EQ(c.live, 0);
  EXPECT_EQ(c.acquired, 2);
  EXPECT_EQ(c.taken_over, 1);
  EXPECT_EQ(c.released, 1);
  EXPECT_EQ(c.stale, 2);
  EXPECT_TRUE(slots.release_key(5) == false);
}

TEST(ContextSlots, BoundedOverflowIsCountedAndFreedSlotsAreReused) {
  ContextSlots slots(64);
  std::vector<int64_t> tokens;
  int refused = 0;
  for (int64_t key = 1; key <= 200; key++) {
    int64_t token = 0;
    if (slots.acquire(key, &token) == nullptr) {
      refused++;
    } else {
      tokens.push_back(token);
    }
  }
  EXPECT_LE(tokens.size(), 64u);
  EXPECT_EQ(refused, 200 - static_cast<int>(tokens.size()));
  EXPECT_EQ(slots.counts().overflowed, refused);
  // Every key that got a slot reads its own; the others read nothing.
  SampleContext read;
  int readable = 0;
  for (int64_t key = 1; key <= 200; key++) readable += slots.read(key, &read) ? 1 : 0;
  EXPECT_EQ(readable, static_cast<int>(tokens.size()));
  for (int64_t token : tokens) EXPECT_TRUE(slots.release(token));
  EXPECT_EQ(slots.counts().live, 0);
  // Freed slots (tombstones) are taken again: the table does not fill up with dead threads.
  for (int round = 0; round < 20; round++) {
    std::vector<int64_t> again;
    for (int64_t key = 1000 + round * 40; key < 1000 + round * 40 + 40; key++) {
      int64_t token = 0;
      ASSERT_NE(slots.acquire(key, &token), nullptr) << "round " << round << " key " << key;
      again.push_back(token);
    }
    for (int64_t token : again) EXPECT_TRUE(slots.release(token));
  }
}

TEST(ContextSlots, ConcurrentThreadsReadTheirOwnContextWhileOthersComeAndGo) {
  ContextSlots slots(1024);
  constexpr int kWriters = 4;
  std::atomic<bool> stop{false};
  std::atomic<int64_t> wrong{0}, reads{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; w++) {
    threads.emplace_back([&, w] {
      const int64_t key = 100 + w;
      int64_t token = 0;
      ContextCell* cell = slots.acquire(key, &token);
      ASSERT_NE(cell, nullptr);
      for (uint32_t i = 1; i < 200000; i++) {
        const uint32_t set = i * kWriters + static_cast<uint32_t>(w);
        publish(cell, {set, set, uint64_t{set} * 3, uint64_t{set} * 5});
        SampleContext read;
        if (!slots.read(key, &read) || read.label_set != set || read.trace_high != set || read.span != set * 5ull) {
          wrong++;
        }
        reads++;
      }
      slots.release(token);
    });
  }
  // Churn: other threads acquire and release keys around them.
  threads.emplace_back([&] {
    for (int64_t key = 10000; !stop.load(); key++) {
      int64_t token = 0;
      if (slots.acquire(key, &token) != nullptr) slots.release(token);
    }
  });
  for (int w = 0; w < kWriters; w++) threads[w].join();
  stop = true;
  threads.back().join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(reads.load(), int64_t{kWriters} * 199999);
  EXPECT_EQ(slots.counts().live, 0);
}

// A signal handler that interrupts the writer between any two of its stores must find a whole
// context: the invariant trace_high == 3 * label_set == span / 5 * 3 holds for every copy written.
ContextSlots* g_slots = nullptr;
std::atomic<int64_t> g_signal_reads{0}, g_torn{0};
constexpr int64_t kSignalKey = 77;

void check_in_handler(int) {
  SampleContext c;
  if (g_slots->read(kSignalKey, &c)) {
    g_signal_reads.fetch_add(1, std::memory_order_relaxed);
    if (c.trace_high != uint64_t{c.label_set} * 3 || c.span != uint64_t{c.label_set} * 5 ||
        c.trace_low != uint64_t{c.label_set} * 7) {
      g_torn.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

TEST(ContextSlots, ASignalHandlerOnTheWriterNeverSeesAHalfWrittenContext) {
  ContextSlots slots(64);
  g_slots = &slots;
  struct sigaction sa {};
  sa.sa_handler = check_in_handler;
  sigemptyset(&sa.sa_mask);
  struct sigaction old {};
  ASSERT_EQ(sigaction(SIGUSR2, &sa, &old), 0);
  // The writer publishes until told to stop; the signals come until enough reads were made (or a
  // bound of signals sent): counts only, so a loaded machine changes the time it takes, not the
  // verdict.
  std::atomic<bool> stop{false};
  std::atomic<pthread_t> writer_thread{};
  std::thread writer([&] {
    int64_t token = 0;
    ContextCell* cell = slots.acquire(kSignalKey, &token);
    ASSERT_NE(cell, nullptr);
    writer_thread = pthread_self();
    for (uint32_t i = 1; !stop.load(std::memory_order_relaxed); i++) {
      publish(cell, {i, uint64_t{i} * 3, uint64_t{i} * 7, uint64_t{i} * 5});
    }
  });
  while (writer_thread.load() == pthread_t{}) std::this_thread::yield();
  for (int64_t sent = 0; g_signal_reads.load() < 2000 && sent < 2'000'000; sent++) {
    pthread_kill(writer_thread.load(), SIGUSR2);
    std::this_thread::yield();
  }
  stop = true;
  writer.join();
  sigaction(SIGUSR2, &old, nullptr);
  EXPECT_GE(g_signal_reads.load(), 2000);
  EXPECT_EQ(g_torn.load(), 0);
}

TEST(SampleContextPool, RoundTripAndBoundedWhenFull) {
  static SampleContextPool pool;  // 128 KiB: not on the stack
  const uint32_t r = pool.put({4, 5, 6, 7});
  ASSERT_NE(r, 0u);
  const SampleContext c = pool.take(r);
  EXPECT_EQ(c.label_set, 4u);
  EXPECT_EQ(c.trace_high, 5u);
  EXPECT_EQ(c.trace_low, 6u);
  EXPECT_EQ(c.span, 7u);
  EXPECT_TRUE(pool.take(0).empty());
  std::set<uint32_t> held;
  for (uint32_t i = 0; i < SampleContextPool::kRecords; i++) {
    const uint32_t n = pool.put({i + 1, 0, 0, 0});
    ASSERT_NE(n, 0u);
    EXPECT_TRUE(held.insert(n).second) << "record " << n << " given twice";
  }
  EXPECT_EQ(pool.put({1, 0, 0, 0}), 0u);
  EXPECT_EQ(pool.full(), 1);
  EXPECT_EQ(pool.in_use(), SampleContextPool::kRecords);
  for (uint32_t n : held) EXPECT_NE(pool.take(n).label_set, 0u);
  EXPECT_EQ(pool.in_use(), 0);
}

TEST(SampleContextPool, ConcurrentPutsAndTakesKeepEachContext) {
  static SampleContextPool pool;
  std::atomic<int64_t> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++) {
    threads.emplace_back([&, t] {
      for (uint32_t i = 1; i < 100000; i++) {
        const uint32_t set = i * 4 + static_cast<uint32_t>(t);
        const uint32_t r = pool.put({set, set, 0, 0});
        if (r == 0) continue;
        const SampleContext c = pool.take(r);
        if (c.label_set != set || c.trace_high != set) wrong++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(pool.in_use(), 0);
}

}  // namespace
}  // namespace jvmkit::prof
