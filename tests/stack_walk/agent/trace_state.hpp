// What the checking callbacks (callbacks.cpp) keep of the open trace, and the totals, that the checks
// in other files read too: the depth check (depth_check.cpp), the virtual-thread identity check
// (virtual_checks.cpp) and the counters' check (counter_checks.cpp). Written on the delivery thread.
#pragma once

#include <jni.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace walktest {

extern bool g_open_biased;
extern jboolean g_open_truncated;
extern int64_t g_frames_in_open;
extern std::string g_open_text;  // printed with a violation or a missing method
extern std::atomic<int64_t> g_truncated, g_flag_errors;
extern std::atomic<int64_t> g_identity_mismatch;

}  // namespace walktest
