#include "profiler/recording/native_report.hpp"

#include <cstdio>

namespace jvmkit::prof {
namespace {

// "118 (3.8%)": N and its share of TOTAL.
std::string with_share(int64_t n, int64_t total, const char* of = "") {
  char text[64];
  std::snprintf(text, sizeof(text), "%lld (%.1f%%%s)", static_cast<long long>(n),
                total > 0 ? 100.0 * static_cast<double>(n) / static_cast<double>(total) : 0.0, of);
  return text;
}

std::string milliseconds(int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.0f ms", static_cast<double>(ns) / 1e6);
  return text;
}

}  // namespace

std::vector<std::string> native_report_lines(const NativeFigures& f,
                                             const std::array<std::string, kMarkerReasons>& marker_labels) {
  std::vector<std::string> out;
  char line[256];
  std::snprintf(line, sizeof(line),
                "native: %lld of %lld traces (%.1f%%) with native frames, %lld of them without Java frames",
                static_cast<long long>(f.with_native), static_cast<long long>(f.traces),
                f.traces > 0 ? 100.0 * static_cast<double>(f.with_native) / static_cast<double>(f.traces) : 0.0,
                static_cast<long long>(f.native_only));
  out.emplace_back(line);
  std::string markers;
  for (size_t r = 0; r < kMarkerReasons; r++) {
    if (f.markers[r] == 0) continue;
    markers += markers.empty() ? "" : ", ";
    markers += marker_labels[r] + " " + with_share(f.markers[r], f.traces, " of traces");
  }
  out.push_back("native: native parts ended short (markers): " + (markers.empty() ? std::string("none") : markers));
  std::string kinds;
  int64_t samples = 0;
  for (int64_t n : f.samples_by_kind) samples += n;
  for (size_t k = 0; k < kThreadKinds; k++) {
    kinds += k == 0 ? "" : ", ";
    kinds +=
        std::string(thread_kind_name(static_cast<ThreadKind>(k))) + " " + with_share(f.samples_by_kind[k], samples);
  }
  out.push_back("native: samples by thread kind: " + kinds);
  if (!f.kernel_active) {
    out.push_back("native: no kernel frames: " + f.kernel_why_not);
  } else {
    std::string kernel = "native: kernel frames in " + with_share(f.with_kernel, f.traces, " of traces") +
                         ", from the perf events' call chains; " + std::to_string(f.kernel_unmatched) +
                         " signals found no sample of their own (no kernel part)";
    if (f.kernel_threads_without_ring > 0) {
      kernel += "; " + std::to_string(f.kernel_threads_without_ring) +
                " threads without them (no ring buffer could be mapped: perf_event_mlock_kb)";
    }
    if (!f.kernel_unnamed_why.empty()) kernel += "; UNNAMED: " + f.kernel_unnamed_why;
    out.push_back(kernel);
  }
  std::snprintf(line, sizeof(line),
                "native: unwind tables of %lld objects (%lld failed, %lld rows), built in %s; the start waited %s",
                static_cast<long long>(f.objects_prepared), static_cast<long long>(f.objects_failed),
                static_cast<long long>(f.unwind_rows), milliseconds(f.prepare_ns).c_str(),
                milliseconds(f.enable_ns).c_str());
  out.emplace_back(line);
  return out;
}

}  // namespace jvmkit::prof
