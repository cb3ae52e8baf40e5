// The native state table logic (src/native_state/state_map.hpp) without a JVM: objects are plain
// structs, "references" are pointers to them, a dead object is one whose flag is set. Built with
// ASan/UBSan and TSan too (scripts/test.sh).
#include "native_state/state_map.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <memory>
#include <thread>
#include <vector>

namespace jvmkit::native_state {
namespace {

struct FakeObject {
  int32_t hash;
  std::atomic<bool> dead{false};
  explicit FakeObject(int32_t h) : hash(h) {}
};

// A reference is a heap cell pointing at the object, so that use after drop() is an ASan error.
struct FakeRef {
  const FakeObject* target;
};
using Ref = FakeRef*;

struct FakeRefs {
  const FakeObject* obj;
  std::atomic<long>* live_refs;
  bool same(Ref r) const { return r->target == obj && !r->target->dead; }
  Ref make() const {
    live_refs->fetch_add(1);
    return new FakeRef{obj};
  }
  void drop(Ref r) const {
    live_refs->fetch_sub(1);
    delete r;
  }
  bool dead(Ref r) const { return r->target->dead; }
};

class StateMapTest : public ::testing::Test {
 protected:
  FakeRefs refs(const FakeObject* o) { return FakeRefs{o, &live_refs_}; }
  void* get(const FakeObject& o) {
    return map_.get(o.hash, [&](Ref r) { return r->target == &o && !o.dead; });
  }
  void TearDown() override {
    FakeRefs r = refs(nullptr);
    map_.destroy(r, [](void*) {});
    EXPECT_EQ(live_refs_.load(), 0) << "every reference made is dropped";
  }
  std::atomic<long> live_refs_{0};
  StateMap<Ref> map_{97};
};

int s1, s2, s3;

TEST_F(StateMapTest, SetGetRemoveFollowTheSpec) {
  FakeObject a(7);
  auto r = refs(&a);
  EXPECT_EQ(get(a), nullptr);
  ASSERT_EQ(map_.set(a.hash, &s1, r), SetResult::kOk);
  EXPECT_EQ(get(a), &s1);
  ASSERT_EQ(map_.set(a.hash, &s2, r), SetResult::kOk);  // replaces
  EXPECT_EQ(get(a), &s2);
  EXPECT_EQ(map_.size(), 1u);
  EXPECT_EQ(map_.remove(a.hash, r), &s2);
  EXPECT_EQ(get(a), nullptr);
  EXPECT_EQ(map_.remove(a.hash, r), nullptr);
}

TEST_F(StateMapTest, CollidingObjectsNeverShareState) {
  std::vector<std::unique_ptr<FakeObject>> objs;
  std::vector<int> states(2000);
  for (int i = 0; i < 2000; ++i) {
    objs.push_back(std::make_unique<FakeObject>(1));
    auto r = refs(objs.back().get());
    ASSERT_EQ(map_.set(1, &states[i], r), SetResult::kOk);
  }
  for (int i = 0; i < 2000; ++i) ASSERT_EQ(get(*objs[i]), &states[i]);
  EXPECT_GT(map_.capacity(), 97u);  // grew past its starting size
}

TEST_F(StateMapTest, ANewObjectNeverSeesADeadObjectsState) {
  auto old_obj = std::make_unique<FakeObject>(5);
  auto r = refs(old_obj.get());
  map_.set(5, &s1, r);
  old_obj->dead = true;
  FakeObject fresh(5);
  EXPECT_EQ(get(fresh), nullptr);
  auto rf = refs(&fresh);
  map_.set(5, &s2, rf);
  EXPECT_EQ(get(fresh), &s2);
  std::vector<void*> swept;
  auto rn = refs(nullptr);
  EXPECT_EQ(map_.sweep(rn, [&](void* s) { swept.push_back(s); }), 1u);
  ASSERT_EQ(swept.size(), 1u);
  EXPECT_EQ(swept[0], &s1);
  EXPECT_EQ(get(fresh), &s2);
  EXPECT_EQ(map_.size(), 1u);
}

TEST_F(StateMapTest, ObjectIdsAndObjectsAreSeparateAndAnyIdWorks) {
  FakeObject a(INT_MIN);
  auto r = refs(&a);
  auto none = refs(nullptr);
  map_.set(INT_MIN, &s1, r);
  map_.set_oid(INT_MIN, &s2, none);
  map_.set_oid(-1, &s3, none);
  EXPECT_EQ(map_.get_oid(INT_MIN), &s2);
  EXPECT_EQ(map_.get_oid(-1), &s3);
  EXPECT_EQ(get(a), &s1);
  EXPECT_EQ(map_.remove_oid(INT_MIN, none), &s2);
  EXPECT_EQ(map_.get_oid(INT_MIN), nullptr);
  EXPECT_EQ(get(a), &s1);
  EXPECT_EQ(map_.sweep(none, [](void*) {}), 0u);  // ids are never swept
  EXPECT_EQ(map_.get_oid(-1), &s3);
}

TEST_F(StateMapTest, SweepHandsOverManyDeadObjects) {
  std::vector<std::unique_ptr<FakeObject>> objs;
  for (int i = 0; i < 300; ++i) {
    objs.push_back(std::make_unique<FakeObject>(i % 3));
    auto r = refs(objs.back().get());
    map_.set(i % 3, objs.back().get(), r);
  }
  for (int i = 0; i < 300; i += 2) objs[i]->dead = true;
  std::vector<void*> swept;
  auto none = refs(nullptr);
  EXPECT_EQ(map_.sweep(none, [&](void* s) { swept.push_back(s); }), 150u);
  for (void* s : swept) EXPECT_TRUE(static_cast<FakeObject*>(s)->dead);
  for (int i = 1; i < 300; i += 2) EXPECT_EQ(get(*objs[i]), objs[i].get());
}

// Several threads set, get and remove on overlapping objects with colliding hashes. A reader
// must only ever see its object's own state (each state names its object), and references of
// removed entries must stay valid while readers may hold them (ASan would report a use after
// drop). TSan checks the memory ordering.
TEST_F(StateMapTest, ConcurrentMixedOperationsNeverMixUpObjects) {
  constexpr int kObjects = 64;
  std::vector<std::unique_ptr<FakeObject>> objs;
  for (int i = 0; i < kObjects; ++i) objs.push_back(std::make_unique<FakeObject>(i % 4));
  std::atomic<long> wrong{0}, hits{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      unsigned k = 17 + t;
      for (int i = 0; i < 20000; ++i) {
        k = k * 1103515245u + 12345u;
        FakeObject& o = *objs[(k >> 8) % kObjects];
        auto r = refs(&o);
        switch ((k >> 4) % 4) {
          case 0:
            map_.set(o.hash, &o, r);
            break;
          case 1: {
            void* s = map_.remove(o.hash, r);
            if (s != nullptr && s != &o) wrong.fetch_add(1);
            break;
          }
          default: {
            void* s = get(o);
            if (s != nullptr) {
              hits.fetch_add(1, std::memory_order_relaxed);
              if (s != &o) wrong.fetch_add(1);
            }
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(hits.load(), 0);
}

// Removals in a burst do not each pay for a reclamation attempt (two membarrier calls, which
// interrupt every CPU running the process): attempts are spaced in time, and bounded in memory.
TEST_F(StateMapTest, ReclamationIsThrottledAndBounded) {
  constexpr int kObjects = 20000;
  std::vector<std::unique_ptr<FakeObject>> objs;
  std::vector<int> states(kObjects);
  for (int i = 0; i < kObjects; ++i) {
    objs.push_back(std::make_unique<FakeObject>(i));
    auto r = refs(objs.back().get());
    ASSERT_EQ(map_.set(i, &states[i], r), SetResult::kOk);
  }
  const size_t before = map_.reclaim_attempts();
  const auto start = std::chrono::steady_clock::now();
  size_t most_waiting = 0;
  for (int i = 0; i < kObjects; ++i) {
    auto r = refs(objs[i].get());
    ASSERT_EQ(map_.remove(i, r), &states[i]);
    if (i % 256 == 0) most_waiting = std::max(most_waiting, map_.retired());
  }
  const auto elapsed_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  const size_t attempts = map_.reclaim_attempts() - before;
  // One attempt per 10 ms, plus one per 4,096 waiting entries; the old policy made one per 64
  // removals (312 here).
  EXPECT_LE(attempts, static_cast<size_t>(2 + kObjects / 4096 + elapsed_ms / 10)) << elapsed_ms << " ms";
  EXPECT_GE(attempts, 1u);
  EXPECT_LE(most_waiting, 4096u + 256u);
  // A forced reclamation (nothing reads) releases everything.
  auto r = refs(nullptr);
  map_.reclaim(r);
  EXPECT_EQ(map_.retired(), 0u);
  EXPECT_EQ(live_refs_.load(), 0);
}

}  // namespace
}  // namespace jvmkit::native_state
