#include "concurrent/epoch_domain.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace jvmkit {
namespace {

TEST(EpochDomain, AdvancesWhenNoReaderIsActive) {
  EpochDomain& d = EpochDomain::instance();
  uint64_t e = d.epoch();
  EXPECT_EQ(d.try_advance(), e + 1);
  EXPECT_EQ(d.try_advance(), e + 2);
}

TEST(EpochDomain, ActiveReaderHoldsBackReclamation) {
  EpochDomain& d = EpochDomain::instance();
  RetireList<int> list;
  std::atomic<bool> entered{false}, leave{false};
  std::thread reader([&] {
    EpochDomain::Guard g;
    entered = true;
    while (!leave) std::this_thread::yield();
  });
  while (!entered) std::this_thread::yield();
  list.retire(42);
  std::vector<int> freed;
  for (int i = 0; i < 10; ++i) list.reclaim([&](int v) { freed.push_back(v); });
  // The reader announced an epoch <= the retire epoch: the global epoch cannot pass it by 2.
  EXPECT_TRUE(freed.empty());
  EXPECT_EQ(list.size(), 1u);
  uint64_t stuck = d.epoch();
  EXPECT_EQ(d.try_advance(), stuck);
  leave = true;
  reader.join();
  list.reclaim([&](int v) { freed.push_back(v); });
  ASSERT_EQ(freed.size(), 1u);
  EXPECT_EQ(freed[0], 42);
}

TEST(EpochDomain, NestedGuardsStayActiveUntilOutermostExits) {
  EpochDomain& d = EpochDomain::instance();
  std::atomic<int> phase{0};
  std::thread reader([&] {
    EpochDomain::Guard outer;
    { EpochDomain::Guard inner; }
    phase = 1;
    while (phase != 2) std::this_thread::yield();
  });
  while (phase != 1) std::this_thread::yield();
  d.try_advance();
  uint64_t e = d.epoch();
  EXPECT_EQ(d.try_advance(), e);  // still held by the outer guard
  phase = 2;
  reader.join();
  EXPECT_EQ(d.try_advance(), e + 1);
}

TEST(EpochDomain, ExitedThreadsGiveTheirSlotsBack) {
  EpochDomain& d = EpochDomain::instance();
  auto run = [] { EpochDomain::Guard g; };
  std::thread(run).join();
  size_t after_one = d.slot_count();
  for (int i = 0; i < 20; ++i) std::thread(run).join();
  EXPECT_LE(d.slot_count(), after_one + 1);
}

}  // namespace
}  // namespace jvmkit
