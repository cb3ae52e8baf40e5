// JvmkitCurrentTraceThread's answer inside a trace: the thread's tid and kind, and its kernel name,
// which is read from /proc at most once a second per thread (a profiler asks at every trace), so a
// rename shows within that second. Outside a trace it is JVMTI_ERROR_NOT_AVAILABLE.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "stack_walk/native/native_delivery.hpp"

namespace jvmkit::walk {
namespace {

jvmkitTraceThread ask_about(pid_t tid) {
  const TraceThread thread{tid, false};
  set_current_trace_thread(&thread);
  jvmkitTraceThread out{};
  EXPECT_EQ(current_trace_thread(&out), JVMTI_ERROR_NONE);
  set_current_trace_thread(nullptr);
  return out;
}

TEST(TraceThread, NamesTheThreadAndShowsARenameWithinASecond) {
  const pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
  ASSERT_EQ(pthread_setname_np(pthread_self(), "jvmkit-first"), 0);
  const jvmkitTraceThread first = ask_about(tid);
  EXPECT_EQ(first.tid, tid);
  EXPECT_EQ(first.java_thread, JNI_FALSE);
  EXPECT_STREQ(first.name, "jvmkit-first");

  ASSERT_EQ(pthread_setname_np(pthread_self(), "jvmkit-second"), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_STREQ(ask_about(tid).name, "jvmkit-second");
}

TEST(TraceThread, IsNotAvailableOutsideATrace) {
  jvmkitTraceThread out{};
  EXPECT_EQ(current_trace_thread(&out), JVMTI_ERROR_NOT_AVAILABLE);
  const TraceThread thread{1, false};
  set_current_trace_thread(&thread);
  EXPECT_EQ(current_trace_thread(nullptr), JVMTI_ERROR_NULL_POINTER);
  set_current_trace_thread(nullptr);
}

}  // namespace
}  // namespace jvmkit::walk
