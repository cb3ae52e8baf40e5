// The upcall workload's checks (expect=upcall): jvmkit.test.walk.UpcallMain with its JNI library
// (tests/stack_walk/native/upcall_jni.c, path in system property jvmkit.upcall.lib). The main
// thread calls, again and again,
//   main -> a -> native n1 -> Java_..._n1 -> mid -> CallStaticVoidMethod -> b -> native n2
//        -> Java_..._n2 -> leaf (in its own loop, in libc's qsort, or in memcpy)
// so a trace taken in leaf must read, from leaf down:
//   leaf, Java_jvmkit_test_walk_UpcallMain_n2       (native code of the library)
//   UpcallMain.n2 (native method), UpcallMain.b     (Java)
//   call_stub ([code cache]), one or more libjvm frames (JavaCalls::call_helper ... jni_CallStaticVoidMethod)
//   mid, Java_jvmkit_test_walk_UpcallMain_n1         (native code of the library)
//   UpcallMain.n1 (native method), UpcallMain.a, UpcallMain.main
//   call_stub, one or more libjvm frames, the launcher's libjli frames, libc frames ending at the
//   thread's first frame (clone3, start_thread, __libc_start_call); no marker anywhere.
// Checked at the end: at least min_exact_pct of the samples in leaf's reach read exactly so; and
// the shares of leaf's time (its own loop, qsort, memcpy) are those the library measured by the
// wall clock, within max_tv_pct (total variation distance).
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "native_agent.hpp"

namespace nativetest {

namespace {

constexpr const char* kClass = "jvmkit.test.walk.UpcallMain.";
constexpr const char* kRootSymbols[] = {"clone3", "clone", "start_thread", "__libc_start_call", "__libc_start_main"};

// Where a sample in leaf spent its moment: the frames above leaf.
enum Share { kLeafLoop, kQsort, kMemcpy, kOtherShare, kShares };
const char* const kShareNames[kShares] = {"leaf's loop", "qsort", "memcpy", "other"};

struct UpcallStats {
  // Samples in leaf's reach: traces with a leaf frame; traces below UpcallMain.n2 without one that
  // are not outside_leaf (a sample in leaf or its callees that did not unwind to leaf); failed
  // requests whose PC is in the library.
  int64_t with_leaf = 0, below_n2_other = 0, failed_in_library = 0;
  int64_t exact = 0;
  int64_t below_n2_outside_leaf = 0;  // left out: in n2's native wrapper, its JNI function or the JVM
  int64_t failed_main = 0;
  int64_t shares[kShares] = {};
  // Traces that do not read the chain, by shape (frames without their offsets): how many, why, one.
  struct Mismatch {
    int64_t count = 0;
    int64_t first_ns = -1, last_ns = -1;  // when the first and last were taken
    std::string why, text;
  };
  std::map<std::string, Mismatch> mismatches;
  std::vector<std::string> other_shares;
  int64_t first_ns = -1;  // when the first sample in leaf's reach was taken
};
UpcallStats g_upcall;

const std::string& upcall_library() {
  static const std::string name = basename_of(system_property("jvmkit.upcall.lib").c_str());
  return name;
}

bool has_symbol(const Frame& f, const char* symbol) {
  return !f.java && f.symbol != nullptr && std::strcmp(f.symbol, symbol) == 0;
}

bool in_library(const Frame& f, const char* prefix) {
  return !f.java && f.library != nullptr && std::strncmp(basename_of(f.library), prefix, std::strlen(prefix)) == 0;
}

bool is_java(const Frame& f, const char* method) {
  return f.java && method_name(f.method) == kClass + std::string(method);
}

bool is_call_stub(const Frame& f) {
  return !f.java && f.type == JVMKIT_FRAME_JVM && f.library != nullptr && std::strcmp(f.library, "[code cache]") == 0 &&
         has_symbol(f, "call_stub");
}

bool is_libjvm(const Frame& f) { return !f.java && f.type == JVMKIT_FRAME_JVM && in_library(f, "libjvm.so"); }

bool is_root_symbol(const Frame& f) {
  for (const char* root : kRootSymbols) {
    if (has_symbol(f, root)) return true;
  }
  return false;
}

// Reads a trace frame by frame against the expected chain; the first difference is kept.
class ChainReader {
 public:
  ChainReader(const Trace& trace, size_t at) : frames_(trace.frames), at_(at) {}

  void native(const char* symbol) {
    const Frame* f = next(symbol);
    expect(f != nullptr && f->type == JVMKIT_FRAME_NATIVE_CODE && has_symbol(*f, symbol) &&
               in_library(*f, upcall_library().c_str()),
           symbol);
  }
  void java(const char* method, bool native_method) {
    const Frame* f = next(method);
    expect(f != nullptr && is_java(*f, method) && (f->type == JVMTI_FRAME_NATIVE) == native_method,
           native_method ? "the native method" : "the Java method");
  }
  void call_stub() {
    const Frame* f = next("call_stub");
    expect(f != nullptr && is_call_stub(*f), "call_stub");
  }
  // One or more libjvm frames, then whatever follows.
  void libjvm_run() {
    const Frame* f = next("libjvm frames");
    expect(f != nullptr && is_libjvm(*f), "a libjvm frame");
    while (ok() && at_ < frames_.size() && is_libjvm(frames_[at_])) at_++;
  }
  // The launcher's frames (libjli), then libc's, the last one the thread's first frame.
  void root_run() {
    while (ok() && at_ < frames_.size() && in_library(frames_[at_], "libjli.so")) at_++;
    const Frame* f = next("libc frames");
    expect(f != nullptr && in_library(*f, "libc.so"), "a libc frame");
    while (ok() && at_ < frames_.size() && in_library(frames_[at_], "libc.so")) at_++;
    if (ok() && at_ < frames_.size()) error_ = "#" + std::to_string(at_) + " follows the libc frames";
    if (ok() && !is_root_symbol(frames_.back())) error_ = "the last frame is not the thread's first frame";
  }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  const Frame* next(const char* what) {
    if (!ok()) return nullptr;
    if (at_ >= frames_.size()) {
      error_ = std::string("the trace ends where ") + what + " should be";
      return nullptr;
    }
    return &frames_[at_++];
  }
  void expect(bool good, const char* what) {
    if (!good && ok()) error_ = "#" + std::to_string(at_ - 1) + " is not " + what;
  }

  const std::vector<Frame>& frames_;
  size_t at_;
  std::string error_;
};

// Empty when the frames from AT (leaf) down are the chain, else the first difference.
std::string chain_difference(const Trace& trace, size_t at) {
  ChainReader r(trace, at);
  r.native("leaf");
  r.native("Java_jvmkit_test_walk_UpcallMain_n2");
  r.java("n2", true);
  r.java("b", false);
  r.call_stub();
  r.libjvm_run();
  r.native("mid");
  r.native("Java_jvmkit_test_walk_UpcallMain_n1");
  r.java("n1", true);
  r.java("a", false);
  r.java("main", false);
  r.call_stub();
  r.libjvm_run();
  r.root_run();
  return r.error();
}

Share share_of(const Trace& trace, size_t leaf_at) {
  if (leaf_at == 0) return kLeafLoop;
  for (size_t i = 0; i < leaf_at; i++) {
    const Frame& f = trace.frames[i];
    if (has_symbol(f, "burn_compare") ||
        (in_library(f, "libc.so") && f.symbol != nullptr &&
         (std::strstr(f.symbol, "qsort") != nullptr || std::strstr(f.symbol, "msort") != nullptr))) {
      return kQsort;
    }
  }
  const Frame& top = trace.frames[0];
  const bool copy = top.symbol != nullptr && (std::strstr(top.symbol, "memmove") || std::strstr(top.symbol, "memcpy"));
  return leaf_at == 1 && in_library(top, "libc.so") && copy ? kMemcpy : kOtherShare;
}

// A trace below UpcallMain.n2 without leaf: outside leaf's reach when, without a marker, its native
// part above n2 is empty with the sampled PC in no object (the dynamic loader's answer: the code
// cache, n2's native wrapper), n2's JNI function alone (entering or leaving the call), or the JVM's
// code and what that calls (the VM linking or wrapping the native method).
bool outside_leaf(const Trace& trace) {
  if (trace.markers > 0) return false;
  if (trace.top_native == 0) {
    const int64_t seq = ud_seq(trace.user_data);
    return sampled_time_ns(seq) >= 0 && loader_object_of(sampled_pc(seq)).empty();
  }
  const Frame& joining = trace.frames[trace.top_native - 1];
  if (joining.type == JVMKIT_FRAME_JVM) return true;
  return trace.top_native == 1 && has_symbol(joining, "Java_jvmkit_test_walk_UpcallMain_n2");
}

// The frames of a trace without their PCs and offsets: traces of one shape differ only there.
std::string shape_of(const Trace& trace) {
  std::string shape;
  for (const Frame& f : trace.frames) {
    if (f.java) {
      shape += method_name(f.method) + ";";
    } else if (f.type == JVMKIT_FRAME_MARKER) {
      shape += std::string("[") + JvmkitNativeEndName(f.end) + "];";
    } else {
      shape += std::string(f.library ? basename_of(f.library) : "?") + ":" + (f.symbol ? f.symbol : "?") + ";";
    }
  }
  return shape;
}

void record_mismatch(const std::string& shape, int64_t time_ns, const std::string& why, const std::string& text) {
  UpcallStats::Mismatch& m = g_upcall.mismatches[shape];
  if (m.count++ == 0 && g_upcall.mismatches.size() <= 20) {
    m.why = why;
    m.text = text;
  }
  if (m.first_ns < 0) m.first_ns = time_ns;
  m.last_ns = time_ns;
}

double ms_into_run(int64_t time_ns) {
  return time_ns >= 0 && g_upcall.first_ns >= 0 ? (time_ns - g_upcall.first_ns) / 1e6 : -1.0;
}

void print_mismatches() {
  std::vector<std::pair<int64_t, const UpcallStats::Mismatch*>> sorted;
  for (const auto& [shape, m] : g_upcall.mismatches) sorted.emplace_back(m.count, &m);
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < sorted.size() && i < 6; i++) {
    if (sorted[i].second->text.empty()) continue;
    const UpcallStats::Mismatch& m = *sorted[i].second;
    std::fprintf(stderr, "UPCALL MISMATCH (%lld traces of this shape, from %.0f to %.0f ms into the run) %s:\n%s",
                 (long long)m.count, ms_into_run(m.first_ns), ms_into_run(m.last_ns), m.why.c_str(), m.text.c_str());
  }
}

// The library's measured wall time per phase (upcall_phase_nanos), in ns; false when not found.
bool truth(double (&nanos)[kShares]) {
  const std::string path = system_property("jvmkit.upcall.lib");
  void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  auto* phase_nanos = reinterpret_cast<jlong (*)(jint)>(dlsym(handle, "upcall_phase_nanos"));
  for (int s = 0; s < kOtherShare && phase_nanos != nullptr; s++) nanos[s] = static_cast<double>(phase_nanos(s));
  nanos[kOtherShare] = 0;
  dlclose(handle);
  return phase_nanos != nullptr;
}

}  // namespace

void record_upcall(const Trace& trace) {
  if (trace.kind != kMain) return;
  size_t leaf_at = trace.frames.size();
  for (size_t i = 0; i < trace.frames.size() && leaf_at == trace.frames.size(); i++) {
    if (has_symbol(trace.frames[i], "leaf")) leaf_at = i;
  }
  const int64_t time_ns = sampled_time_ns(ud_seq(trace.user_data));
  if (leaf_at < trace.frames.size()) {
    if (g_upcall.first_ns < 0) g_upcall.first_ns = time_ns;
    g_upcall.with_leaf++;
    const Share share = share_of(trace, leaf_at);
    g_upcall.shares[share]++;
    if (share == kOtherShare && g_upcall.other_shares.size() < 1) g_upcall.other_shares.push_back(trace_text(trace));
    const std::string why = chain_difference(trace, leaf_at);
    if (why.empty()) {
      g_upcall.exact++;
    } else {
      record_mismatch(shape_of(trace), time_ns, why, trace_text(trace));
    }
    return;
  }
  const size_t first_java = static_cast<size_t>(trace.top_native + trace.markers);
  if (trace.java_frames == 0 || first_java >= trace.frames.size() || !is_java(trace.frames[first_java], "n2")) return;
  if (outside_leaf(trace)) {
    g_upcall.below_n2_outside_leaf++;
    return;
  }
  if (g_upcall.first_ns < 0) g_upcall.first_ns = time_ns;
  g_upcall.below_n2_other++;
  record_mismatch(shape_of(trace), time_ns, "below UpcallMain.n2 without a leaf frame", trace_text(trace));
}

void record_upcall_failure(uintptr_t pc) {
  g_upcall.failed_main++;
  if (loader_object_of(pc) != upcall_library()) return;
  g_upcall.failed_in_library++;
  record_mismatch("failed", -1, "a failed request", "    at pc " + mapping_of(pc) + "\n");
}

bool check_upcall() {
  const UpcallStats& u = g_upcall;
  const int64_t reach = u.with_leaf + u.below_n2_other + u.failed_in_library;
  const double exact_pct = reach > 0 ? 100.0 * u.exact / reach : 0.0;
  std::fprintf(stderr,
               "UPCALL: %lld main-thread samples in leaf's reach (%lld with a leaf frame, %lld below UpcallMain.n2 "
               "without one, %lld failed with the PC in %s); %lld (%.2f%%) read the chain exactly. Left out: %lld "
               "below UpcallMain.n2 in its native wrapper, its JNI function or the JVM; main-thread failures in "
               "all: %lld\n",
               (long long)reach, (long long)u.with_leaf, (long long)u.below_n2_other, (long long)u.failed_in_library,
               upcall_library().c_str(), (long long)u.exact, exact_pct, (long long)u.below_n2_outside_leaf,
               (long long)u.failed_main);
  print_mismatches();
  bool ok = true;
  if (reach < option_long("min_leaf_samples", 1000)) {
    fail("upcall: %lld samples in leaf's reach (want >= %ld)", (long long)reach, option_long("min_leaf_samples", 1000));
    ok = false;
  }
  if (exact_pct < option_long("min_exact_pct", 99)) {
    fail("upcall: %.2f%% read the chain exactly (want >= %ld%%)", exact_pct, option_long("min_exact_pct", 99));
    ok = false;
  }
  double nanos[kShares];
  if (!truth(nanos)) {
    fail("upcall: upcall_phase_nanos not found in %s", system_property("jvmkit.upcall.lib").c_str());
    return false;
  }
  const double all_nanos = nanos[kLeafLoop] + nanos[kQsort] + nanos[kMemcpy];
  double tv = 0;
  for (int s = 0; s < kShares; s++) {
    const double seen = u.with_leaf > 0 ? static_cast<double>(u.shares[s]) / u.with_leaf : 0.0;
    const double truth_share = all_nanos > 0 ? nanos[s] / all_nanos : 0.0;
    tv += std::fabs(seen - truth_share) / 2;
    std::fprintf(stderr, "UPCALL SHARE %-11s %6lld samples %5.1f%%, truth %5.1f%% (%.0f ms)\n", kShareNames[s],
                 (long long)u.shares[s], 100 * seen, 100 * truth_share, nanos[s] / 1e6);
  }
  std::fprintf(stderr, "UPCALL TV: %.4f (bar %.2f)\n", tv, option_long("max_tv_pct", 5) / 100.0);
  for (const std::string& text : u.other_shares) std::fprintf(stderr, "UPCALL OTHER SHARE:\n%s", text.c_str());
  if (tv > option_long("max_tv_pct", 5) / 100.0) {
    fail("upcall: the shares of leaf's time are %.4f from the truth (total variation; want <= %.2f)", tv,
         option_long("max_tv_pct", 5) / 100.0);
    ok = false;
  }
  return ok;
}

std::string loader_object_of(uintptr_t pc) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(pc), &info) == 0 || info.dli_fname == nullptr) return "";
  return basename_of(info.dli_fname);
}

std::string system_property(const char* key) {
  char* value = nullptr;
  if (g_jvmti->GetSystemProperty(key, &value) != JVMTI_ERROR_NONE || value == nullptr) return "";
  std::string text = value;
  g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(value));
  return text;
}

std::string trace_text(const Trace& trace) {
  std::string text;
  for (size_t i = 0; i < trace.frames.size(); i++) {
    text += "    #" + std::to_string(i) + " " + describe_frame(trace.frames[i]) + "\n";
  }
  return text;
}

}  // namespace nativetest
