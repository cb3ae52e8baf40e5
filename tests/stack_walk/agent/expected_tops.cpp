// Expected top frames (option expect_top, see expected_tops.hpp): the top frames' names and the
// check of their shares by workload.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "agent.hpp"
#include "expected_tops.hpp"

namespace walktest {

std::vector<TopExpectation> g_tops;
std::map<int, int> g_top_of_thread;  // tracked index -> g_tops index, or -1
std::string g_open_top, g_open_chain;

std::string simple_name(jmethodID method) {
  char* name = nullptr;
  jclass holder = nullptr;
  std::string out;
  if (g_jvmti->GetMethodName(method, &name, nullptr, nullptr) == JVMTI_ERROR_NONE &&
      g_jvmti->GetMethodDeclaringClass(method, &holder) == JVMTI_ERROR_NONE) {
    char* sig = nullptr;
    if (g_jvmti->GetClassSignature(holder, &sig, nullptr) == JVMTI_ERROR_NONE) {
      std::string c(sig);
      g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(sig));
      if (!c.empty() && c.back() == ';') c.pop_back();
      size_t cut = c.find_last_of("/$");
      out = c.substr(cut == std::string::npos ? 1 : cut + 1) + "." + name;
    }
  }
  if (name) g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
  if (holder) jni_env()->DeleteLocalRef(holder);
  return out;
}

int expectation_of(int index) {
  auto it = g_top_of_thread.find(index);
  if (it != g_top_of_thread.end()) return it->second;
  int found = -1;
  const std::string thread = g_tracked[index].name;
  for (size_t i = 0; i < g_tops.size(); i++) {
    if (thread == "worker-" + g_tops[i].workload) found = static_cast<int>(i);
  }
  g_top_of_thread[index] = found;
  return found;
}

void set_expected_tops(const std::string& spec) {
  // WORKLOAD:Name|Name/WORKLOAD:Name...
  size_t at = 0;
  while (at < spec.size()) {
    size_t end = spec.find('/', at);
    if (end == std::string::npos) end = spec.size();
    std::string item = spec.substr(at, end - at);
    size_t colon = item.find(':');
    if (colon != std::string::npos) {
      TopExpectation t;
      t.workload = item.substr(0, colon);
      std::string names = item.substr(colon + 1);
      size_t n = 0;
      while (n <= names.size()) {
        size_t bar = names.find('|', n);
        if (bar == std::string::npos) bar = names.size();
        t.names.push_back(names.substr(n, bar - n));
        n = bar + 1;
      }
      g_tops.push_back(std::move(t));
    }
    at = end + 1;
  }
}

bool check_expected_tops(long min_permille, long min_samples) {
  bool ok = true;
  for (const TopExpectation& t : g_tops) {
    const double share = t.total ? 1000.0 * static_cast<double>(t.right) / static_cast<double>(t.total) : 0;
    std::string names;
    for (const std::string& n : t.names) names += (names.empty() ? "" : " or ") + n;
    std::fprintf(stderr, "  top frame of worker-%-10s %6.1f%% of %lld moments in %s\n", t.workload.c_str(), share / 10,
                 (long long)t.total, names.c_str());
    std::vector<std::pair<int64_t, std::string>> others;
    for (const auto& [chain, count] : t.elsewhere) others.emplace_back(count, chain);
    std::sort(others.rbegin(), others.rend());
    for (size_t i = 0; i < others.size() && i < 4; i++) {
      std::fprintf(stderr, "      elsewhere %lld: %s\n", (long long)others[i].first, others[i].second.c_str());
    }
    if (t.total < min_samples) {
      violation("worker-%s: %lld samples, fewer than %ld", t.workload.c_str(), (long long)t.total, min_samples);
      ok = false;
    } else if (share < static_cast<double>(min_permille)) {
      violation("worker-%s: top frame right in %.1f%% of samples (need %.1f%%)", t.workload.c_str(), share / 10,
                static_cast<double>(min_permille) / 10);
      ok = false;
    }
  }
  return ok;
}

}  // namespace walktest
