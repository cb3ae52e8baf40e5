// The frame-type and call-site truth (options truth, callsites) that the callbacks (callbacks.cpp)
// compare every frame with; set_truth, set_call_sites and check_frame_types (agent.hpp) are its
// interface for the agent.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace walktest {

// Frame-type truth (option truth=name.T/name.T/*native.T/*.T): expected jvmtiFrameType by method
// name; "*native" for any method declared native, "*" for any other method.
extern std::map<std::string, int> g_truth;
extern int g_truth_native, g_truth_default;
extern std::atomic<int64_t> g_matrix_all[4][4], g_matrix_top[4][4];
// Call-site truth (option callsites=name.bci.bci/...): a non-top frame of NAME must be at one of
// these bcis (its call sites), whether it is a physical frame or has a method inlined into it.
extern std::map<std::string, std::vector<long>> g_call_sites;
extern std::atomic<int64_t> g_call_site_checked, g_call_site_wrong;

}  // namespace walktest
