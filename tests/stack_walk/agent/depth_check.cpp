// The depth check (mode=depth), its promises described at set_depth_check in agent.hpp.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include "agent.hpp"
#include "depth_check.hpp"
#include "trace_state.hpp"

namespace walktest {

// The depth check (set_depth_check): methods classified once by name, the open trace's marks, and
// what was seen by stream (0 unbiased, 1 biased): complete traces by frame count, truncated ones.
std::string g_depth_method, g_root_method;
long g_depth_limit = 0;  // 0: no depth check
std::unordered_map<jmethodID, int> g_method_marks;
bool g_open_has_depth = false, g_open_has_root = false, g_open_last_is_root = false;
// g_complete_at is written by the delivery thread and read by depth_traces (a Java thread).
std::mutex g_complete_mutex;
std::map<int64_t, int64_t> g_complete_at[2];
std::atomic<int64_t> g_truncated_at_limit[2] = {}, g_depth_violations{0};

int mark_of(jmethodID method) {
  auto it = g_method_marks.find(method);
  if (it != g_method_marks.end()) return it->second;
  int mark = kOtherMethod;
  char* name = nullptr;
  if (g_jvmti->GetMethodName(method, &name, nullptr, nullptr) == JVMTI_ERROR_NONE) {
    // depth_method may name several methods, separated by '/': a trace with any of them is checked.
    const std::string wrapped = "/" + g_depth_method + "/";
    const bool depth = wrapped.find("/" + std::string(name) + "/") != std::string::npos;
    mark = depth ? kDepthMethod : g_root_method == name ? kRootMethod : kOtherMethod;
    g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
  }
  g_method_marks.emplace(method, mark);
  return mark;
}

namespace {

void depth_violation(const char* what, void* ud) {
  if (g_depth_violations++ < 5) {
    violation("%s trace %p of %lld frames (limit %ld, truncated %d, has %s %d, ends in %s %d): %s",
              g_open_biased ? "biased" : "unbiased", ud, (long long)g_frames_in_open, g_depth_limit, g_open_truncated,
              g_depth_method.c_str(), g_open_has_depth, g_root_method.c_str(), g_open_last_is_root, what);
    std::fprintf(stderr, "%s", g_open_text.c_str());
  }
}

}  // namespace

// At the end of a trace with a frame of the depth method: the limit's promises.
void check_depth_of_open_trace(void* ud) {
  const int stream = g_open_biased ? 1 : 0;
  if (g_frames_in_open > g_depth_limit) depth_violation("more frames than the limit", ud);
  if (g_open_truncated) {
    if (g_frames_in_open != g_depth_limit) depth_violation("truncated, but not at the limit", ud);
    if (g_open_has_root) depth_violation("truncated, but it reaches the thread's root method", ud);
    g_truncated_at_limit[stream]++;
  } else if (!g_open_last_is_root) {
    depth_violation("not truncated, but it does not end in the thread's root method", ud);
  } else {
    std::lock_guard<std::mutex> lock(g_complete_mutex);
    g_complete_at[stream][g_frames_in_open]++;
  }
}

void set_depth_check(const std::string& depth_method, const std::string& root_method, long max_frames) {
  g_depth_method = depth_method;
  g_root_method = root_method;
  g_depth_limit = max_frames;
}

int64_t depth_traces(long frames, int stream) {
  if (frames > g_depth_limit) return g_truncated_at_limit[stream].load();
  std::lock_guard<std::mutex> lock(g_complete_mutex);
  auto it = g_complete_at[stream].find(frames);
  return it == g_complete_at[stream].end() ? 0 : it->second;
}

// Options: expect_complete=D/D/... (complete traces of exactly D frames, at least min_depth_traces
// unbiased and min_biased_depth_traces biased ones of each), min_complete (unbiased, of any
// length), min_truncated (unbiased; biased:
// min_biased_truncated), max_truncated (both streams).
bool check_depths() {
  int before = violations();
  std::lock_guard<std::mutex> lock(g_complete_mutex);
  std::fprintf(stderr, "DEPTH (limit %ld): truncated at the limit: unbiased %lld, biased %lld\n", g_depth_limit,
               (long long)g_truncated_at_limit[0].load(), (long long)g_truncated_at_limit[1].load());
  for (int stream = 0; stream < 2; stream++) {
    std::fprintf(stderr, "DEPTH: complete %s traces by frames:", stream == 0 ? "unbiased" : "biased");
    for (const auto& [frames, count] : g_complete_at[stream]) {
      if (count >= 5) std::fprintf(stderr, " %lld:%lld", (long long)frames, (long long)count);
    }
    std::fprintf(stderr, "\n");
  }
  if (g_depth_violations.load() != 0) {
    violation("%lld traces broke the depth limit's promises", (long long)g_depth_violations.load());
  }
  int64_t complete = 0;
  for (const auto& [frames, count] : g_complete_at[0]) complete += count;
  if (complete < option_long("min_complete", 0))
    violation("%lld complete unbiased traces (want >= %ld)", (long long)complete, option_long("min_complete", 0));
  const std::string expected = option("expect_complete", "");
  for (size_t at = 0; at < expected.size();) {
    size_t end = expected.find('/', at);
    if (end == std::string::npos) end = expected.size();
    const int64_t frames = std::strtoll(expected.c_str() + at, nullptr, 10);
    const long mins[2] = {option_long("min_depth_traces", 100), option_long("min_biased_depth_traces", 0)};
    for (int stream = 0; stream < 2; stream++) {
      auto it = g_complete_at[stream].find(frames);
      const int64_t got = it == g_complete_at[stream].end() ? 0 : it->second;
      if (got < mins[stream]) {
        violation("%lld complete %s traces of %lld frames (want >= %ld)", (long long)got,
                  stream == 0 ? "unbiased" : "biased", (long long)frames, mins[stream]);
      }
    }
    at = end + 1;
  }
  if (g_truncated_at_limit[0].load() < option_long("min_truncated", 0))
    violation("%lld truncated unbiased traces (want >= %ld)", (long long)g_truncated_at_limit[0].load(),
              option_long("min_truncated", 0));
  if (g_truncated_at_limit[1].load() < option_long("min_biased_truncated", 0))
    violation("%lld truncated biased traces (want >= %ld)", (long long)g_truncated_at_limit[1].load(),
              option_long("min_biased_truncated", 0));
  const long max_truncated = option_long("max_truncated", -1);
  if (max_truncated >= 0 && g_truncated.load() > max_truncated)
    violation("%lld traces flagged truncated (want <= %ld)", (long long)g_truncated.load(), max_truncated);
  return violations() == before;
}

}  // namespace walktest
