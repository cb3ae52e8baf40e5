// base/flat_map.hpp: look-ups, growth past many doublings, colliding hashes, clear.
#include "base/flat_map.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <unordered_map>

namespace {

using jvmkit::FlatMap;

TEST(FlatMap, FindsWhatWasInsertedAndNothingElse) {
  FlatMap<uint64_t, std::string> map;
  EXPECT_EQ(map.find(1), nullptr);
  auto [value, added] = map.insert(1, "one");
  EXPECT_TRUE(added);
  EXPECT_EQ(*value, "one");
  auto [again, added_again] = map.insert(1, "uno");
  EXPECT_FALSE(added_again);
  EXPECT_EQ(*again, "one");  // insert keeps the value there
  map.assign(1, "uno");
  ASSERT_NE(map.find(1), nullptr);
  EXPECT_EQ(*map.find(1), "uno");
  EXPECT_EQ(map.find(2), nullptr);
  EXPECT_EQ(map.size(), 1u);
}

TEST(FlatMap, AgreesWithAnUnorderedMapThroughManyGrowths) {
  FlatMap<uint64_t, uint64_t> map;
  std::unordered_map<uint64_t, uint64_t> reference;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 100'000; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const uint64_t key = x % 30'000;  // repeats: inserts of keys already there
    map.insert(key, key * 3);
    reference.emplace(key, key * 3);
  }
  EXPECT_EQ(map.size(), reference.size());
  for (const auto& [key, value] : reference) {
    const uint64_t* found = map.find(key);
    ASSERT_NE(found, nullptr) << key;
    EXPECT_EQ(*found, value);
  }
  for (uint64_t key = 30'000; key < 31'000; key++) EXPECT_EQ(map.find(key), nullptr);
}

struct SameHash {
  size_t operator()(int) const { return 7; }
};

TEST(FlatMap, KeysOfOneHashAreTakenApartByEquality) {
  FlatMap<int, int, SameHash> map;
  for (int i = 0; i < 100; i++) map.insert(i, -i);
  for (int i = 0; i < 100; i++) {
    ASSERT_NE(map.find(i), nullptr);
    EXPECT_EQ(*map.find(i), -i);
  }
  EXPECT_EQ(map.find(100), nullptr);
}

TEST(FlatMap, ClearForgetsEverything) {
  FlatMap<int, int> map;
  for (int i = 0; i < 50; i++) map.insert(i, i);
  const size_t kept = map.bytes();
  map.clear();
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.find(3), nullptr);
  EXPECT_EQ(map.bytes(), kept);  // the array stays for what comes next
  map.insert(3, 4);
  EXPECT_EQ(*map.find(3), 4);
  map.clear(/*free=*/true);
  EXPECT_EQ(map.bytes(), 0u);
  EXPECT_EQ(map.find(3), nullptr);
}

}  // namespace
