// RequestPool (src/stack_walk/request_pool.hpp): every path begins a request with RequestPool::begin,
// which leaves nothing of the slot's previous request; its debug checks guard the slot indices.
#include "stack_walk/request_pool.hpp"

#include <gtest/gtest.h>

namespace jvmkit::walk {
namespace {

jvmtiStackTraceCallbacks some_callbacks() {
  jvmtiStackTraceCallbacks callbacks{};
  callbacks.beginStackTrace = [](jthread, jboolean, void*) {};
  return callbacks;
}

TEST(RequestPool, BeginLeavesNothingOfTheSlotsPreviousRequest) {
  RequestPool pool(1);
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
  pool.producer().publish(index);
  uint64_t ticket = 0;
  ASSERT_TRUE(pool.take(&index, &ticket));
  pool.release(index);

  auto* jni = reinterpret_cast<JNIEnv*>(0x20);
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
}

TEST(RequestPool, ExhaustedPoolBeginsNothing) {
  RequestPool pool(2);
  uint32_t a = 0, b = 0, c = 0;
  EXPECT_NE(pool.producer().begin(&a, RequestKind::kCurrentBiased, some_callbacks(), nullptr, nullptr), nullptr);
  EXPECT_NE(pool.producer().begin(&b, RequestKind::kCurrentBiased, some_callbacks(), nullptr, nullptr), nullptr);
  EXPECT_EQ(pool.producer().begin(&c, RequestKind::kCurrentBiased, some_callbacks(), nullptr, nullptr), nullptr);
  pool.producer().abandon(b);
  EXPECT_NE(pool.producer().begin(&c, RequestKind::kCurrentBiased, some_callbacks(), nullptr, nullptr), nullptr);
  EXPECT_EQ(c, b);
}

#if defined(JVMKIT_DEBUG_CHECKS)
// A slot index from anywhere but this pool would hand the delivery thread a slot nobody filled, or
// corrupt the free list.
TEST(RequestPoolDeathTest, ReleasingAnIndexOutsideThePoolAborts) {
  RequestPool pool(4);
  EXPECT_DEATH(pool.release(4), "jvmkit: debug check failed: index < slots_count_");
}

TEST(RequestPoolDeathTest, PublishingAnIndexOutsideThePoolAborts) {
  RequestPool pool(4);
  EXPECT_DEATH(pool.producer().publish(9), "jvmkit: debug check failed: index < slots_count_");
}
#endif

}  // namespace
}  // namespace jvmkit::walk
