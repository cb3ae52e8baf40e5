#include "concurrent/wake_event.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace jvmkit {
namespace {

using Clock = std::chrono::steady_clock;

TEST(WakeEvent, WaitTimesOutWithoutNotify) {
  WakeEvent e;
  uint32_t token = e.prepare();
  auto start = Clock::now();
  e.wait(token, 20'000'000);
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(15));
}

TEST(WakeEvent, NotifyBeforeWaitIsNotLost) {
  WakeEvent e;
  uint32_t token = e.prepare();
  e.notify();  // between the consumer's check and its sleep
  auto start = Clock::now();
  e.wait(token, 5'000'000'000);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));
}

TEST(WakeEvent, NotifyWakesASleepingWaiter) {
  WakeEvent e;
  std::atomic<bool> published{false};
  std::atomic<bool> woke{false};
  std::thread consumer([&] {
    while (!published.load()) {
      uint32_t token = e.prepare();
      if (published.load()) break;
      e.wait(token, 10'000'000'000);
    }
    woke.store(true);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto start = Clock::now();
  published.store(true);
  e.notify();
  consumer.join();
  EXPECT_TRUE(woke.load());
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
}

// Many notifiers, one consumer counting published items: it always ends with all of them and
// never sleeps through its 10 s timeout (which would mean a lost wake-up).
TEST(WakeEvent, NoLostWakeUpsUnderContention) {
  WakeEvent e;
  std::atomic<int> published{0};
  constexpr int kPerThread = 20000;
  std::thread producers[3];
  for (auto& p : producers) {
    p = std::thread([&] {
      for (int i = 0; i < kPerThread; i++) {
        published.fetch_add(1);
        e.notify();
      }
    });
  }
  int seen = 0;
  auto start = Clock::now();
  while (seen < 3 * kPerThread) {
    uint32_t token = e.prepare();
    int now = published.load();
    if (now == seen) {
      e.wait(token, 10'000'000'000);
    }
    seen = published.load();
  }
  for (auto& p : producers) p.join();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(10));
}

// A nap is not cut short by notify(): producers make no syscall while the consumer naps.
TEST(WakeEvent, NotifyDoesNotEndANap) {
  WakeEvent e;
  std::thread notifier([&] {
    for (int i = 0; i < 20; i++) {
      e.notify();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  auto start = Clock::now();
  e.nap(60'000'000, [] { return false; });
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(50));
  notifier.join();
}

TEST(WakeEvent, UrgeEndsANap) {
  WakeEvent e;
  std::atomic<bool> napping{false};
  std::thread consumer([&] {
    e.nap(10'000'000'000, [&] {
      napping.store(true);
      return false;
    });
  });
  while (!napping.load() || !e.napping()) std::this_thread::yield();
  auto start = Clock::now();
  e.urge();
  consumer.join();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
}

// An urge after the nap is announced but before it sleeps is not lost: the nap returns at once.
TEST(WakeEvent, UrgeBeforeNapIsNotLost) {
  WakeEvent e;
  auto start = Clock::now();
  e.nap(5'000'000'000, [&] {
    e.urge();  // a producer between the announcement and the sleep
    return false;
  });
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));
}

// An urgent condition seen once the nap is announced skips the sleep.
TEST(WakeEvent, UrgentConditionSkipsTheNap) {
  WakeEvent e;
  auto start = Clock::now();
  e.nap(5'000'000'000, [] { return true; });
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));
  EXPECT_FALSE(e.napping());
}

// urge() outside a nap does nothing, and the next nap is not cut short by it.
TEST(WakeEvent, UrgeWithoutNapIsForgotten) {
  WakeEvent e;
  e.urge();
  auto start = Clock::now();
  e.nap(20'000'000, [] { return false; });
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(15));
}

}  // namespace
}  // namespace jvmkit
