// RequestPool (src/stack_walk/request_pool.hpp): every path begins a request with RequestPool::begin,
// which leaves nothing of the slot's previous request; its debug checks guard the slot indices; each
// slot owns max_frames + 1 frames of the pool's one mapping. The depth rules (src/stack_walk/depth.hpp):
// the pool's size for a depth limit, and exact truncation.
#include "stack_walk/request_pool.hpp"

#include <gtest/gtest.h>

#include <set>

namespace jvmkit::walk {
namespace {

jvmtiStackTraceCallbacks some_callbacks() {
  jvmtiStackTraceCallbacks callbacks{};
  callbacks.beginStackTrace = [](jthread, jboolean, void*) {};
  return callbacks;
}

TEST(RequestPool, BeginLeavesNothingOfTheSlotsPreviousRequest) {
  RequestPool pool(1, 8);
  uint32_t index = 0;
  Request* first = pool.producer().begin(&index, RequestKind::kCaptured, some_callbacks(), &pool, nullptr);
  ASSERT_NE(first, nullptr);
  // What a capture writes into its slot.
  first->target = reinterpret_cast<jobject>(0x10);
  first->num_frames = 7;
  first->pc = 0x1000;
  first->sp = 0x2000;
  first->coarse_top = true;
  first->physical_count = 3;
  first->time_ns = 1;
  pool.producer().publish(index);
  uint64_t ticket = 0;
  ASSERT_TRUE(pool.take(&index, &ticket));
  pool.release(index);

  auto* jni = reinterpret_cast<JNIEnv*>(0x20);
  const int64_t before = monotonic_ns();
  Request* second = pool.producer().begin(&index, RequestKind::kOtherBiased, jvmtiStackTraceCallbacks{}, nullptr, jni);
  ASSERT_EQ(second, first);  // the one slot, again
  EXPECT_EQ(second->kind, RequestKind::kOtherBiased);
  EXPECT_EQ(second->callbacks.beginStackTrace, nullptr);
  EXPECT_EQ(second->user_data, nullptr);
  EXPECT_EQ(second->jni, jni);
  EXPECT_EQ(second->target, nullptr);
  EXPECT_EQ(second->num_frames, 0);
  EXPECT_EQ(second->pc, 0u);
  EXPECT_EQ(second->sp, 0u);
  EXPECT_FALSE(second->coarse_top);
  EXPECT_EQ(second->physical_count, 0);
  // The moment of this request, not of the slot's last one.
  EXPECT_GE(second->time_ns, before);
  EXPECT_LE(second->time_ns, monotonic_ns());
}

TEST(RequestPool, ExhaustedPoolBeginsNothing) {
  RequestPool pool(2, 8);
  uint32_t a = 0, b = 0, c = 0;
  EXPECT_NE(pool.producer().begin(&a, RequestKind::kCurrentBiased, some_callbacks(), nullptr, nullptr), nullptr);
  EXPECT_NE(pool.producer().begin(&b, RequestKind::kCurrentBiased, some_callbacks(), nullptr, nullptr), nullptr);
  EXPECT_EQ(pool.producer().begin(&c, RequestKind::kCurrentBiased, some_callbacks(), nullptr, nullptr), nullptr);
  pool.producer().abandon(b);
  EXPECT_NE(pool.producer().begin(&c, RequestKind::kCurrentBiased, some_callbacks(), nullptr, nullptr), nullptr);
  EXPECT_EQ(c, b);
}

TEST(RequestPool, EachSlotOwnsOneFrameMoreThanATraceHolds) {
  constexpr jint kMaxFrames = 5;
  constexpr uint32_t kSlots = 3;
  RequestPool pool(kSlots, kMaxFrames);
  ASSERT_TRUE(pool.allocated());
  EXPECT_EQ(pool.max_frames(), kMaxFrames);
  EXPECT_EQ(pool.capture_depth(), kMaxFrames + 1);
  EXPECT_EQ(pool.producer().capture_depth(), kMaxFrames + 1);
  // Take every slot; each capture fills all of its frames with its own mark.
  uint32_t index[kSlots];
  std::set<hotspot::AsgctFrame*> starts;
  for (uint32_t i = 0; i < kSlots; i++) {
    Request* r = pool.producer().begin(&index[i], RequestKind::kCaptured, some_callbacks(), nullptr, nullptr);
    ASSERT_NE(r, nullptr);
    ASSERT_NE(r->frames, nullptr);
    starts.insert(r->frames);
    for (jint f = 0; f < pool.capture_depth(); f++) r->frames[f].lineno = static_cast<jint>(index[i] * 100 + f);
  }
  EXPECT_EQ(starts.size(), kSlots);
  // No slot's frames overlap another's, and begin leaves the frames pointer to the slot.
  for (uint32_t i = 0; i < kSlots; i++) {
    const Request& r = pool.at(index[i]);
    for (jint f = 0; f < pool.capture_depth(); f++)
      EXPECT_EQ(r.frames[f].lineno, static_cast<jint>(index[i] * 100 + f));
    pool.producer().abandon(index[i]);
  }
  uint32_t again = 0;
  Request* r = pool.producer().begin(&again, RequestKind::kCaptured, some_callbacks(), nullptr, nullptr);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->frames[0].lineno, static_cast<jint>(again * 100));
}

TEST(RequestPool, TheLargestLimitMapsItsPool) {
  RequestPool pool(pool_slots_for(kMaxStackDepth), kMaxStackDepth);
  ASSERT_TRUE(pool.allocated());
  uint32_t index = 0;
  Request* r = pool.producer().begin(&index, RequestKind::kCaptured, some_callbacks(), nullptr, nullptr);
  ASSERT_NE(r, nullptr);
  r->frames[kMaxStackDepth].lineno = 7;  // the last frame of the slot, the one that tells truncation
  EXPECT_EQ(r->frames[kMaxStackDepth].lineno, 7);
}

TEST(StackDepth, RangeAndDefault) {
  EXPECT_FALSE(valid_stack_depth(0));
  EXPECT_FALSE(valid_stack_depth(-1));
  EXPECT_TRUE(valid_stack_depth(1));
  EXPECT_TRUE(valid_stack_depth(2048));
  EXPECT_TRUE(valid_stack_depth(65536));
  EXPECT_FALSE(valid_stack_depth(65537));
  EXPECT_EQ(kDefaultStackDepth, 2048);
  EXPECT_TRUE(valid_stack_depth(kDefaultStackDepth));
}

TEST(StackDepth, PoolSlotsStayWithinTheBudget) {
  EXPECT_EQ(pool_slots_for(1), 1024u);
  EXPECT_EQ(pool_slots_for(1024), 1024u);
  EXPECT_EQ(pool_slots_for(2048), 512u);
  EXPECT_EQ(pool_slots_for(8192), 128u);
  EXPECT_EQ(pool_slots_for(65536), 64u);
  for (jint depth = kMinStackDepth; depth <= kMaxStackDepth; depth += depth < 4096 ? 1 : 97) {
    const uint32_t slots = pool_slots_for(depth);
    ASSERT_GE(slots, kMinPoolSlots) << depth;
    ASSERT_LE(slots, kMaxPoolSlots) << depth;
    // Within the budget, unless the floor of slots forces more.
    if (slots > kMinPoolSlots) {
      ASSERT_LE(uint64_t{slots} * (uint64_t(depth) + 1), kPoolFrameBudget) << depth;
    }
  }
}

TEST(StackDepth, TruncationIsExact) {
  // A walk with room for max + 1 frames: a stack of exactly max frames is whole...
  EXPECT_EQ(delivered_depth(2048, 2048).count, 2048);
  EXPECT_FALSE(delivered_depth(2048, 2048).truncated);
  // ...one of max + 1 (the walk filled every frame) is cut to max and flagged.
  EXPECT_EQ(delivered_depth(2049, 2048).count, 2048);
  EXPECT_TRUE(delivered_depth(2049, 2048).truncated);
  EXPECT_EQ(delivered_depth(1, 1).count, 1);
  EXPECT_FALSE(delivered_depth(1, 1).truncated);
  EXPECT_EQ(delivered_depth(2, 1).count, 1);
  EXPECT_TRUE(delivered_depth(2, 1).truncated);
  EXPECT_EQ(delivered_depth(100, 2048).count, 100);
  EXPECT_FALSE(delivered_depth(100, 2048).truncated);
}

#if defined(JVMKIT_DEBUG_CHECKS)
// A slot index from anywhere but this pool would hand the delivery thread a slot nobody filled, or
// corrupt the free list.
TEST(RequestPoolDeathTest, ReleasingAnIndexOutsideThePoolAborts) {
  RequestPool pool(4, 8);
  EXPECT_DEATH(pool.release(4), "jvmkit: debug check failed: index < slots_count_");
}

TEST(RequestPoolDeathTest, ADepthOutOfRangeAborts) {
  EXPECT_DEATH(RequestPool(4, kMaxStackDepth + 1), "jvmkit: debug check failed: slots > 0 && valid_stack_depth");
}

TEST(RequestPoolDeathTest, PublishingAnIndexOutsideThePoolAborts) {
  RequestPool pool(4, 8);
  EXPECT_DEATH(pool.producer().publish(9), "jvmkit: debug check failed: index < slots_count_");
}
#endif

}  // namespace
}  // namespace jvmkit::walk
