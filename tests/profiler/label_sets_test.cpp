// LabelSets: interning of labels and label sets (the ids JvmkitContext caches), and its bounds.
#include "profiler/context/label_sets.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace jvmkit::prof {
namespace {

TEST(LabelSets, InternsLabelsAndSetsOnce) {
  LabelSets sets;
  const uint32_t a = sets.intern_label("endpoint", "/a");
  EXPECT_NE(a, 0u);
  EXPECT_EQ(sets.intern_label("endpoint", "/a"), a);
  EXPECT_NE(sets.intern_label("endpoint", "/b"), a);
  // The separator cannot make two labels one: ("a", "b=c") and ("a=b", "c").
  EXPECT_NE(sets.intern_label("a", "b=c"), sets.intern_label("a=b", "c"));
  const uint32_t set = sets.intern_set(LabelSets::kEmptySet, a);
  EXPECT_NE(set, LabelSets::kEmptySet);
  EXPECT_EQ(sets.intern_set(LabelSets::kEmptySet, a), set);
  EXPECT_EQ(sets.labels_of(set), (std::vector<Label>{{"endpoint", "/a"}}));
  EXPECT_TRUE(sets.labels_of(LabelSets::kEmptySet).empty());
  EXPECT_TRUE(sets.labels_of(12345).empty());
}

TEST(LabelSets, NestingAddsAndAKeyGivenAgainTakesTheNewValueInItsPlace) {
  LabelSets sets;
  const uint32_t endpoint_a = sets.intern_label("endpoint", "/a");
  const uint32_t endpoint_b = sets.intern_label("endpoint", "/b");
  const uint32_t tenant = sets.intern_label("tenant", "acme");
  const uint32_t outer = sets.intern_set(0, endpoint_a);
  const uint32_t both = sets.intern_set(outer, tenant);
  EXPECT_EQ(sets.labels_of(both), (std::vector<Label>{{"endpoint", "/a"}, {"tenant", "acme"}}));
  EXPECT_EQ(labels_text(sets.labels_of(both)), "endpoint=/a,tenant=acme");
  const uint32_t replaced = sets.intern_set(both, endpoint_b);
  EXPECT_EQ(sets.labels_of(replaced), (std::vector<Label>{{"endpoint", "/b"}, {"tenant", "acme"}}));
  // The same labels reached another way are the same set.
  EXPECT_EQ(sets.intern_set(sets.intern_set(0, endpoint_b), tenant), replaced);
  EXPECT_EQ(sets.intern_set(both, endpoint_a), both);
}

TEST(LabelSets, UnknownIdsAreRefused) {
  LabelSets sets;
  const uint32_t a = sets.intern_label("k", "v");
  EXPECT_EQ(sets.intern_set(99, a), 0u);
  EXPECT_EQ(sets.intern_set(0, 0), 0u);
  EXPECT_EQ(sets.intern_set(0, 77), 0u);
  EXPECT_EQ(sets.counts().refused, 3);
}

TEST(LabelSets, BoundedAndCountsRefusals) {
  LabelSets sets;
  size_t interned = 0;
  for (size_t i = 0; i < LabelSets::kMaxLabels + 10; i++) {
    if (sets.intern_label("k", std::to_string(i)) != 0) interned++;
  }
  EXPECT_EQ(interned, LabelSets::kMaxLabels);
  EXPECT_EQ(sets.counts().labels, LabelSets::kMaxLabels);
  EXPECT_EQ(sets.counts().refused, 10);
  // Known labels still answer.
  EXPECT_NE(sets.intern_label("k", "0"), 0u);
}

TEST(LabelSets, ConcurrentInterningAgreesOnIds) {
  LabelSets sets;
  constexpr int kThreads = 4;
  std::vector<std::vector<uint32_t>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; i++) {
        const uint32_t label = sets.intern_label("endpoint", "/" + std::to_string(i % 100));
        seen[t].push_back(sets.intern_set(0, label));
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 1; t < kThreads; t++) EXPECT_EQ(seen[t], seen[0]);
  EXPECT_EQ(sets.counts().sets, 100u);
}

}  // namespace
}  // namespace jvmkit::prof
