// The identity check of traces of mounted virtual threads and its counters, used by the callbacks
// (callbacks.cpp); virtual_seen (agent.hpp) reports the counters.
#pragma once

#include <jni.h>

#include <atomic>
#include <cstdint>

#include "agent.hpp"

namespace walktest {

extern std::atomic<int64_t> g_enter_special_frames;  // counted by on_frame (resolve_every_frame)
void check_virtual_identity(jthread thread, jlong id, const Tracked& t);

}  // namespace walktest
