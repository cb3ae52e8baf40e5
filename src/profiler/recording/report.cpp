#include "profiler/recording/report.hpp"

#include <algorithm>
#include <cstdio>

#include "profiler/thread_list.hpp"
#include "profiler/utf8.hpp"

namespace jvmkit::prof {

namespace {

// "52428800 bytes (50.0 MiB)", "1500000000 ns (1.500 s)".
std::string weight_text(int64_t weight, const std::string& unit) {
  char text[96];
  if (unit == "bytes") {
    std::snprintf(text, sizeof(text), "%lld bytes (%.1f MiB)", static_cast<long long>(weight),
                  static_cast<double>(weight) / (1 << 20));
  } else if (unit == "ns") {
    std::snprintf(text, sizeof(text), "%lld ns (%.3f s)", static_cast<long long>(weight),
                  static_cast<double>(weight) / 1e9);
  } else {
    std::snprintf(text, sizeof(text), "%lld %s", static_cast<long long>(weight), unit.c_str());
  }
  return text;
}

void append_top(std::string* out, const std::vector<MethodCount>& top, int64_t total) {
  char line[64];
  for (const MethodCount& m : top) {
    double pct = total > 0 ? 100.0 * static_cast<double>(m.samples) / static_cast<double>(total) : 0;
    std::snprintf(line, sizeof(line), "  %8lld %6.2f%%  ", static_cast<long long>(m.samples), pct);
    *out += line + m.name + "\n";
  }
}

}  // namespace

std::string event_block_text(const EventBlock& b) {
  const std::string prefix = "jvmkit profiler: " + b.event + ": ";
  std::string out = prefix + b.description + "\n";
  out += prefix + "samples requested " + std::to_string(b.requested) + ", delivered " + std::to_string(b.delivered) +
         ", failed " + std::to_string(b.failed) + ", dropped " + std::to_string(b.dropped) + " (empty traces " +
         std::to_string(b.empty) + ")";
  if (b.below_threshold >= 0) out += "; waits below the threshold, not sampled: " + std::to_string(b.below_threshold);
  out += "\n";
  if (b.waited > 0) {
    char line[160];
    std::snprintf(line, sizeof(line), "%lld requests waited for a free slot (delivery behind), %.1f ms in all\n",
                  static_cast<long long>(b.waited), static_cast<double>(b.waited_ns) / 1e6);
    out += prefix + line;
  }
  out += prefix + std::to_string(b.samples) + " samples weighing " + weight_text(b.weight, b.unit) + "\n";
  if (!b.top.empty()) {
    out += prefix + "top classes (self " + b.unit + "):\n";
    append_top(&out, b.top, b.weight);
  }
  for (const std::string& note : b.notes) out += prefix + note + "\n";
  return out;
}

std::string report_text(const ReportInput& in) {
  std::string out;
  char line[512];
  const SampleCounts& c = in.counts;
  if (in.signal_event) {
    out += "jvmkit profiler: " + in.engine + "\n";
    std::snprintf(line, sizeof(line),
                  "jvmkit profiler: %.1f s; samples requested %lld, delivered %lld, failed %lld, dropped %lld"
                  " (signals %lld, on non-Java threads %lld, without Java code %lld, empty traces %lld)\n",
                  in.seconds, static_cast<long long>(c.requested), static_cast<long long>(c.delivered),
                  static_cast<long long>(c.failed), static_cast<long long>(c.dropped),
                  static_cast<long long>(c.signals), static_cast<long long>(c.not_java),
                  static_cast<long long>(c.no_java_code), static_cast<long long>(c.empty));
    out += line;
  } else {
    std::snprintf(line, sizeof(line), "jvmkit profiler: %.1f s\n", in.seconds);
    out += line;
  }
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
  if (c.no_java_code > 0) {
    std::snprintf(line, sizeof(line),
                  "jvmkit profiler: %lld samples of threads running no Java code at the time (JIT compilers, the "
                  "JVM's start and exit): not failures; their stacks are the JVM's own code, which cstack=native "
                  "shows\n",
                  static_cast<long long>(c.no_java_code));
    out += line;
    reasons("without Java code by thread", c.no_java_code_by_thread);
  }
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
  if (c.virtual_traces > 0) {
    std::snprintf(line, sizeof(line),
                  "jvmkit profiler: virtual threads: %lld traces, %lld of them reported for the carrier "
                  "(the virtual thread had unmounted and was not known); frozen frames read in %lld\n",
                  static_cast<long long>(c.virtual_traces), static_cast<long long>(c.virtual_unnamed),
                  static_cast<long long>(c.virtual_frozen));
    out += line;
  }
  if (in.signal_event && !in.top.empty()) {
    out += "jvmkit profiler: top methods (self samples):\n";
    append_top(&out, in.top, in.total_samples);
  }
  for (const std::string& line : in.native) out += "jvmkit profiler: " + line + "\n";
  for (const EventBlock& block : in.events) out += event_block_text(block);
  for (const std::string& note : in.notes) out += "jvmkit profiler: " + note + "\n";
  for (size_t start = 0; start <= in.output.size();) {
    size_t end = in.output.find('\n', start);
    if (end == std::string::npos) end = in.output.size();
    out += "jvmkit profiler: " + in.output.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

namespace {

// LIST less BASE, reason by reason (a reason BASE lacks keeps its count).
std::vector<std::pair<std::string, int64_t>> reasons_since(const std::vector<std::pair<std::string, int64_t>>& list,
                                                           const std::vector<std::pair<std::string, int64_t>>& base) {
  std::vector<std::pair<std::string, int64_t>> out = list;
  for (auto& [name, n] : out) {
    for (const auto& [base_name, base_n] : base) {
      if (base_name == name) n -= base_n;
    }
  }
  return out;
}

}  // namespace

SampleCounts counts_since(const SampleCounts& now, const SampleCounts& base) {
  SampleCounts out = now;
  out.signals -= base.signals;
  out.requested -= base.requested;
  out.accepted -= base.accepted;
  out.not_java -= base.not_java;
  out.dropped -= base.dropped;
  out.overflowed -= base.overflowed;
  out.delivered -= base.delivered;
  out.failed -= base.failed;
  out.empty -= base.empty;
  out.recovery_attempted -= base.recovery_attempted;
  out.failed_by_reason = reasons_since(now.failed_by_reason, base.failed_by_reason);
  out.dropped_by_reason = reasons_since(now.dropped_by_reason, base.dropped_by_reason);
  out.failed_by_thread = reasons_since(now.failed_by_thread, base.failed_by_thread);
  out.recovered_by_kind = reasons_since(now.recovered_by_kind, base.recovered_by_kind);
  out.unrecovered_by_reason = reasons_since(now.unrecovered_by_reason, base.unrecovered_by_reason);
  return out;
}

std::vector<std::pair<std::string, int64_t>> failures_by_thread(
    const std::unordered_map<pid_t, int64_t>& failures_by_tid) {
  std::vector<std::pair<pid_t, int64_t>> sorted(failures_by_tid.begin(), failures_by_tid.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::pair<std::string, int64_t>> out;
  int64_t rest = 0;
  for (size_t i = 0; i < sorted.size(); i++) {
    if (i >= 3) {
      rest += sorted[i].second;
      continue;
    }
    // The kernel keeps 15 bytes of a thread's name: maybe a character cut in two.
    std::string name = valid_utf8(thread_os_name(sorted[i].first));
    if (name.empty()) name = "ended";
    std::string label = "'";
    label += name;
    label += "' (tid ";
    label += std::to_string(sorted[i].first);
    label += ")";
    out.emplace_back(std::move(label), sorted[i].second);
  }
  if (rest > 0) out.emplace_back("other threads", rest);
  return out;
}

std::string output_outcome(const Error& write_error, OutputFormat format, const std::string& path, int64_t samples) {
  if (write_error) return "ERROR: " + write_error.message();
  return "wrote " + std::string(format_name(format)) + " output (" + std::to_string(samples) + " samples) to " + path;
}

}  // namespace jvmkit::prof
