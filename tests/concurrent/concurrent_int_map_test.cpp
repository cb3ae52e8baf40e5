#include "concurrent/concurrent_int_map.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <memory>
#include <thread>
#include <vector>

namespace jvmkit {
namespace {

struct Item {
  int32_t key;
  int value;
};

TEST(ConcurrentIntMap, FindsInsertedEntriesWithAnyKey) {
  ConcurrentIntMap<Item> map(1);
  std::vector<std::unique_ptr<Item>> items;
  for (int32_t k : {0, 1, -1, INT_MIN, INT_MAX, 97, 194}) {
    items.push_back(std::make_unique<Item>(Item{k, k ^ 5}));
    ASSERT_TRUE(map.insert(items.back().get()));
  }
  EpochDomain::Guard g;
  for (auto& it : items) {
    Item* found = map.find(it->key, [](Item*) { return true; });
    ASSERT_EQ(found, it.get());
  }
  EXPECT_EQ(map.find(12345, [](Item*) { return true; }), nullptr);
  EXPECT_EQ(map.size(), items.size());
}

TEST(ConcurrentIntMap, EqualKeysAreTellApartByTheMatcher) {
  ConcurrentIntMap<Item> map(4);
  std::vector<std::unique_ptr<Item>> items;
  for (int i = 0; i < 1000; ++i) {
    items.push_back(std::make_unique<Item>(Item{1, i}));
    ASSERT_TRUE(map.insert(items.back().get()));
  }
  EpochDomain::Guard g;
  for (int i = 0; i < 1000; i += 37) {
    Item* found = map.find(1, [i](Item* x) { return x->value == i; });
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->value, i);
  }
}

TEST(ConcurrentIntMap, GrowsPastItsInitialSizeAndFreesOldArrays) {
  ConcurrentIntMap<Item> map(1);
  size_t initial = map.capacity();
  std::vector<std::unique_ptr<Item>> items;
  for (int i = 0; i < 10000; ++i) {
    items.push_back(std::make_unique<Item>(Item{i * 7919, i}));
    ASSERT_TRUE(map.insert(items.back().get()));
  }
  EXPECT_GT(map.capacity(), initial);
  EXPECT_GE(map.capacity(), 2 * items.size());
  map.reclaim();
  map.reclaim();
  EXPECT_EQ(map.retired_tables(), 0u);
}

TEST(ConcurrentIntMap, EraseLeavesOtherEntriesOfTheProbeChainReachable) {
  ConcurrentIntMap<Item> map(8);
  Item a{5, 1}, b{5, 2}, c{5, 3};
  map.insert(&a);
  map.insert(&b);
  map.insert(&c);
  map.erase(&b);
  EpochDomain::Guard g;
  EXPECT_EQ(map.find(5, [](Item* x) { return x->value == 3; }), &c);
  EXPECT_EQ(map.find(5, [](Item* x) { return x->value == 2; }), nullptr);
  EXPECT_EQ(map.size(), 2u);
}

TEST(ConcurrentIntMap, TrailingTombstonesAreClearedWithoutLosingEarlierEntries) {
  ConcurrentIntMap<Item> map(8);
  Item a{5, 1}, b{5, 2}, c{5, 3}, d{5, 4};
  for (Item* x : {&a, &b, &c, &d}) map.insert(x);
  map.erase(&b);  // middle: stays a tombstone, c and d stay reachable
  map.erase(&d);  // last of the cluster: cleared, and b's tombstone is not (c follows it)
  EpochDomain::Guard g;
  EXPECT_EQ(map.find(5, [](Item* x) { return x->value == 3; }), &c);
  map.erase(&c);  // now c's slot and b's tombstone are cleared; a must stay
  EXPECT_EQ(map.find(5, [](Item* x) { return x->value == 1; }), &a);
  EXPECT_EQ(map.find(5, [](Item* x) { return x->value != 1; }), nullptr);
  EXPECT_EQ(map.size(), 1u);
  Item e{5, 5};
  map.insert(&e);
  EXPECT_EQ(map.find(5, [](Item* x) { return x->value == 5; }), &e);
}

TEST(ConcurrentIntMap, TombstonesDoNotFillTheArray) {
  ConcurrentIntMap<Item> map(4);
  size_t cap = map.capacity();
  Item it{0, 0};
  for (int i = 0; i < 100000; ++i) {
    it.key = i;
    ASSERT_TRUE(map.insert(&it));
    map.erase(&it);
    map.reclaim();
  }
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.capacity(), cap);  // rebuilt in place, not grown
}

// Readers probe while one writer inserts, erases and grows; every entry a reader finds must be
// intact (not freed: the writer poisons entries only once they are reclaimed). TSan checks races.
void readers_see_only_live_or_retired_entries() {
  struct Node {
    int32_t key;
    std::atomic<int> value;
  };
  ConcurrentIntMap<Node> map(1);
  RetireList<Node*> retired;
  std::atomic<bool> stop{false};
  std::atomic<long> bad{0}, found{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&, r] {
      unsigned k = r;
      while (!stop.load(std::memory_order_relaxed)) {
        EpochDomain::Guard g;
        k = k * 1103515245u + 12345u;
        int32_t key = static_cast<int32_t>(k % 512);
        Node* n = map.find(key, [](Node*) { return true; });
        if (n != nullptr) {
          found.fetch_add(1, std::memory_order_relaxed);
          if (n->value.load(std::memory_order_relaxed) != key) bad.fetch_add(1);
        }
      }
    });
  }
  std::vector<Node*> live(512, nullptr);
  unsigned k = 99;
  // At least 60,000 writes, and on until the readers (which a loaded machine may schedule late)
  // have found entries many times, so that the test always exercises the race it is about.
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (int i = 0; i < 60000 || (found.load() < 1000 && std::chrono::steady_clock::now() < give_up); ++i) {
    k = k * 1664525u + 1013904223u;
    int32_t key = static_cast<int32_t>(k % 512);
    if (live[key] == nullptr) {
      live[key] = new Node{key, {key}};
      ASSERT_TRUE(map.insert(live[key]));
    } else {
      map.erase(live[key]);
      retired.retire(live[key]);
      live[key] = nullptr;
    }
    retired.reclaim([](Node* n) {
      n->value.store(-1, std::memory_order_relaxed);  // poison: a reader seeing it is a bug
      delete n;
    });
    map.reclaim();
  }
  stop = true;
  for (auto& t : readers) t.join();
  retired.drain([](Node* n) { delete n; });
  for (Node* n : live) delete n;
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(found.load(), 0);
}

TEST(ConcurrentIntMap, ReadersSeeOnlyLiveOrRetiredEntriesWhileTheWriterGrows) {
  readers_see_only_live_or_retired_entries();
}

// The same with the fallback ordering (seq_cst announcement, no membarrier). Each test runs in its
// own process (gtest_discover_tests), so the domain is created after the switch.
TEST(ConcurrentIntMap, ReadersAreSafeWithTheFallbackOrderingToo) {
  EpochDomain::disable_membarrier_for_testing();
  ASSERT_FALSE(EpochDomain::instance().asymmetric());
  readers_see_only_live_or_retired_entries();
}

}  // namespace
}  // namespace jvmkit
