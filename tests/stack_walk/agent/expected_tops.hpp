// Expected top frames (option expect_top=WORKLOAD:Class.method|Class.method/...): an unbiased
// trace of thread "worker-WORKLOAD" is right when its top frame is one of the names (simple class
// name, '$' nesting dropped). The others are counted by their top three frames.
// The callbacks (callbacks.cpp) fill these in; check_expected_tops (agent.hpp) judges them.
#pragma once

#include <jvmti.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace walktest {

struct TopExpectation {
  std::string workload;
  std::vector<std::string> names;
  int64_t right = 0, total = 0;
  std::map<std::string, int64_t> elsewhere;
};
extern std::vector<TopExpectation> g_tops;
extern std::string g_open_top, g_open_chain;

// "Class.method" of METHOD, or "" when it does not resolve.
std::string simple_name(jmethodID method);
int expectation_of(int index);

}  // namespace walktest
