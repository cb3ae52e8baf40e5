#include "profiler/report.hpp"

#include <cstdio>

namespace jvmkit::prof {

std::string report_text(const ReportInput& in) {
  std::string out;
  char line[512];
  const SampleCounts& c = in.counts;
  out += "jvmkit profiler: " + in.engine + "\n";
  std::snprintf(line, sizeof(line),
                "jvmkit profiler: %.1f s; samples requested %lld, delivered %lld, failed %lld, dropped %lld"
                " (signals %lld, on non-Java threads %lld, empty traces %lld)\n",
                in.seconds, static_cast<long long>(c.requested), static_cast<long long>(c.delivered),
                static_cast<long long>(c.failed), static_cast<long long>(c.dropped), static_cast<long long>(c.signals),
                static_cast<long long>(c.not_java), static_cast<long long>(c.empty));
  out += line;
  auto reasons = [&](const char* what, const std::vector<std::pair<std::string, int64_t>>& list) {
    std::string s;
    for (const auto& [name, n] : list) {
      if (n == 0) continue;
      s += s.empty() ? "" : ", ";
      s += name + " " + std::to_string(n);
    }
    if (!s.empty()) out += std::string("jvmkit profiler: ") + what + ": " + s + "\n";
  };
  if (c.overflowed > 0) {
    std::snprintf(line, sizeof(line),
                  "jvmkit profiler: at least %lld samples lost: the user's queue of pending signals was full "
                  "(RLIMIT_SIGPENDING, shared by all the user's processes; the kernel sent SIGIO instead)\n",
                  static_cast<long long>(c.overflowed));
    out += line;
  }
  reasons("failed by reason", c.failed_by_reason);
  reasons("failed by thread", c.failed_by_thread);
  reasons("dropped by reason", c.dropped_by_reason);
  if (c.recovery_attempted > 0) {
    int64_t recovered = 0;
    for (const auto& [name, n] : c.recovered_by_kind) recovered += n;
    std::snprintf(line, sizeof(line),
                  "jvmkit profiler: stack-walk recovery: attempted %lld, recovered %lld, not recovered %lld\n",
                  static_cast<long long>(c.recovery_attempted), static_cast<long long>(recovered),
                  static_cast<long long>(c.recovery_attempted - recovered));
    out += line;
    reasons("recovered by kind", c.recovered_by_kind);
    reasons("not recovered by reason", c.unrecovered_by_reason);
  }
  if (!in.top.empty()) {
    out += "jvmkit profiler: top methods (self samples):\n";
    for (const MethodCount& m : in.top) {
      double pct =
          in.total_samples > 0 ? 100.0 * static_cast<double>(m.samples) / static_cast<double>(in.total_samples) : 0;
      std::snprintf(line, sizeof(line), "  %8lld %6.2f%%  ", static_cast<long long>(m.samples), pct);
      out += line + m.name + "\n";
    }
  }
  out += "jvmkit profiler: " + in.output + "\n";
  return out;
}

}  // namespace jvmkit::prof
