// The depth check's part in the callbacks (callbacks.cpp): on_frame marks the open trace's frames,
// on_end judges the trace. Its interface for the agent is in agent.hpp (set_depth_check,
// depth_traces, check_depths).
#pragma once

#include <jvmti.h>

namespace walktest {

enum MethodMark { kOtherMethod = 0, kDepthMethod = 1, kRootMethod = 2 };
extern long g_depth_limit;  // 0: no depth check
extern bool g_open_has_depth, g_open_has_root, g_open_last_is_root;

int mark_of(jmethodID method);
void check_depth_of_open_trace(void* ud);

}  // namespace walktest
