// JVMKIT_DCHECK in a test build: a false condition aborts with the condition and the place named.
#include "base/debug_check.hpp"

#include <gtest/gtest.h>

#include "base/clock.hpp"
#include "base/thread_id.hpp"

namespace jvmkit {
namespace {

#if defined(JVMKIT_DEBUG_CHECKS)
TEST(DebugCheckDeathTest, FalseConditionAbortsNamingIt) {
  const int slots = 4;
  EXPECT_DEATH(JVMKIT_DCHECK(slots > 8), "jvmkit: debug check failed: slots > 8 at .*debug_check_test.cpp:[0-9]+");
}

TEST(DebugCheck, TrueConditionPasses) {
  const int slots = 4;
  JVMKIT_DCHECK(slots == 4);
  SUCCEED();
}
#else
TEST(DebugCheck, CompiledOutDoesNotEvaluate) {
  int evaluated = 0;
  JVMKIT_DCHECK(++evaluated > 0);
  EXPECT_EQ(evaluated, 0);
}
#endif

TEST(Clock, MonotonicNeverGoesBack) {
  const int64_t first = monotonic_ns();
  const int64_t second = monotonic_ns();
  EXPECT_GT(first, 0);
  EXPECT_GE(second, first);
}

TEST(ThreadId, MainThreadIdIsThePid) { EXPECT_EQ(current_tid(), getpid()); }

}  // namespace
}  // namespace jvmkit
