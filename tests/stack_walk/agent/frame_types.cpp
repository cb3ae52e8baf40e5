// The frame-type and call-site truth: parsed from the options, and its confusion matrices checked
// at the end (the callbacks fill them, callbacks.cpp).
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "agent.hpp"
#include "frame_types.hpp"

namespace walktest {

std::map<std::string, int> g_truth;
int g_truth_native = -1, g_truth_default = -1;
std::atomic<int64_t> g_matrix_all[4][4] = {}, g_matrix_top[4][4] = {};
std::map<std::string, std::vector<long>> g_call_sites;
std::atomic<int64_t> g_call_site_checked{0}, g_call_site_wrong{0};

void set_truth(const std::string& spec) {
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t slash = spec.find('/', pos);
    std::string item = spec.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    size_t dot = item.rfind('.');
    if (dot != std::string::npos) {
      std::string name = item.substr(0, dot);
      int type = std::atoi(item.c_str() + dot + 1);
      if (name == "*native") {
        g_truth_native = type;
      } else if (name == "*") {
        g_truth_default = type;
      } else {
        g_truth[name] = type;
      }
    }
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
}

void set_call_sites(const std::string& spec) {
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t slash = spec.find('/', pos);
    std::string item = spec.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    size_t dot = item.find('.');
    if (dot != std::string::npos) {
      std::vector<long>& bcis = g_call_sites[item.substr(0, dot)];
      for (size_t at = dot; at != std::string::npos; at = item.find('.', at + 1)) {
        bcis.push_back(std::strtol(item.c_str() + at + 1, nullptr, 10));
      }
    }
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
}

bool check_frame_types() {
  if (!g_call_sites.empty()) {
    std::fprintf(stderr, "CALL SITES: %lld caller frames checked, %lld at a wrong bci\n",
                 (long long)g_call_site_checked.load(), (long long)g_call_site_wrong.load());
    if (g_call_site_checked.load() < 500) violation("too few caller frames with a known call site");
    // A rare sample ASGCT itself walks from a half-built frame may land elsewhere; anything
    // systematic (a wrong inline chain, a wrong recovery) shows in far more than 0.1%.
    if (g_call_site_wrong.load() * 1000 > g_call_site_checked.load()) {
      violation("%lld of %lld caller frames at a wrong bci (> 0.1%%)", (long long)g_call_site_wrong.load(),
                (long long)g_call_site_checked.load());
    }
  }
  if (g_truth.empty() && g_truth_native < 0 && g_truth_default < 0) return true;
  static const char* kNames[4] = {"interpreter", "jit", "inline", "native"};
  int before = violations();
  for (int m = 0; m < 2; m++) {
    auto& matrix = m == 0 ? g_matrix_top : g_matrix_all;
    int64_t right = 0, total = 0;
    std::fprintf(stderr, "FRAME TYPES (%s frames), rows: truth, columns: reported\n  %-12s", m == 0 ? "top" : "all",
                 "");
    for (const char* n : kNames) std::fprintf(stderr, " %12s", n);
    std::fprintf(stderr, "\n");
    for (int e = 0; e < 4; e++) {
      std::fprintf(stderr, "  %-12s", kNames[e]);
      for (int g = 0; g < 4; g++) {
        int64_t v = matrix[e][g].load();
        std::fprintf(stderr, " %12lld", (long long)v);
        total += v;
        if (e == g) right += v;
      }
      std::fprintf(stderr, "\n");
    }
    double pct = total ? 100.0 * static_cast<double>(right) / static_cast<double>(total) : 0;
    std::fprintf(stderr, "  typed right: %lld of %lld (%.2f%%)\n", (long long)right, (long long)total, pct);
    long min_permille = option_long(m == 0 ? "min_top_permille" : "min_all_permille", m == 0 ? 990 : 950);
    if (total < option_long("min_typed_frames", 500)) {
      violation("only %lld %s frames with a known truth", (long long)total, m == 0 ? "top" : "all");
    } else if (right * 1000 < total * min_permille) {
      violation("%s frames typed right: %.2f%% < %.1f%%", m == 0 ? "top" : "all", pct, min_permille / 10.0);
    }
  }
  return violations() == before;
}

}  // namespace walktest
