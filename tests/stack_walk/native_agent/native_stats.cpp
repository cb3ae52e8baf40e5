// What the traces showed, by kind of thread, and the checks made on it at the end: the library's
// counters against what the callbacks saw, and the workloads' expectations (deflate, vm_threads).
// Written by the delivery thread (record_*), read at VMDeath after Disable.
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "native_agent.hpp"

namespace nativetest {

namespace {

struct KindStats {
  int64_t delivered = 0, failed = 0;
  int64_t native_only = 0;  // traces without Java frames
  int64_t first_frame = 0;  // ... and without a marker: they reached the thread's first frame
  int64_t with_java = 0;
  int64_t markers[JVMKIT_NATIVE_END_REASON_COUNT] = {};
  int64_t failed_by_reason[JVMKIT_FAILURE_REASON_COUNT] = {};
};

KindStats g_kinds[kThreadKinds];
int64_t g_native_frames = 0;  // delivered native frames, markers not counted
int64_t g_markers[JVMKIT_NATIVE_END_REASON_COUNT] = {};
std::map<std::string, int64_t> g_frames_by_library, g_leaves_by_library;
// The first Java frame of traces with native frames above it, where the native run joined.
std::map<std::string, int64_t> g_joins;
// The main thread: traces with native frames above Java frames, and those that join at the deflate
// native method without a marker: [0] all, [1] those taken in the measured loop (kLoopMethod on
// the stack; start-up's class loading and the input's generation run VM code that joins
// elsewhere). And traces by the libraries they hold a frame of.
int64_t g_main_native_above_java[2] = {}, g_main_deflate_joins[2] = {};
std::map<std::string, int64_t> g_main_traces_in_library;
// The first few of those that do not join there, shown when the check fails.
std::vector<std::string> g_main_examples, g_main_other_examples;
// The first failures of HotSpot's own threads, with the PC their signal interrupted.
std::vector<std::string> g_vm_thread_failures;

constexpr const char* kDeflateMethod = "java.util.zip.Deflater.deflateBytesBytes";
constexpr const char* kLoopMethod = "jvmkit.test.walk.DeflateMain.compress";

double percent(int64_t part, int64_t whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

void print_top(const char* title, const std::map<std::string, int64_t>& counts, size_t n) {
  std::vector<std::pair<int64_t, std::string>> sorted;
  int64_t total = 0;
  for (const auto& [name, count] : counts) {
    sorted.emplace_back(count, name);
    total += count;
  }
  std::sort(sorted.rbegin(), sorted.rend());
  std::fprintf(stderr, "%s (%lld in all):\n", title, (long long)total);
  for (size_t i = 0; i < sorted.size() && i < n; i++) {
    std::fprintf(stderr, "  %8lld %5.1f%%  %s\n", (long long)sorted[i].first, percent(sorted[i].first, total),
                 sorted[i].second.c_str());
  }
}

std::string marker_list(const int64_t (&markers)[JVMKIT_NATIVE_END_REASON_COUNT]) {
  std::string text;
  for (int r = 0; r < JVMKIT_NATIVE_END_REASON_COUNT; r++) {
    if (markers[r] == 0) continue;
    text += " " + std::string(JvmkitNativeEndName(static_cast<jvmkitNativeEnd>(r))) + "=" + std::to_string(markers[r]);
  }
  return text.empty() ? " none" : text;
}

bool in_measured_loop(const Trace& trace) {
  for (const Frame& f : trace.frames) {
    if (f.java && method_name(f.method) == kLoopMethod) return true;
  }
  return false;
}

void record_main(const Trace& trace) {
  std::set<std::string> libraries;
  for (const Frame& f : trace.frames) {
    if (!f.java && f.library != nullptr) libraries.insert(basename_of(f.library));
  }
  for (const std::string& library : libraries) g_main_traces_in_library[library]++;
  if (trace.top_native == 0 || trace.java_frames == 0) return;
  const Frame& join = trace.frames[trace.top_native + trace.markers];
  const bool at_deflate = join.type == JVMTI_FRAME_NATIVE && method_name(join.method) == kDeflateMethod;
  const bool joins = at_deflate && trace.markers == 0;
  g_main_native_above_java[0]++;
  if (joins) g_main_deflate_joins[0]++;
  if (!in_measured_loop(trace)) return;
  g_main_native_above_java[1]++;
  if (joins) g_main_deflate_joins[1]++;
  // Examples: the first two that stop short of deflateBytesBytes, and the first other one.
  std::vector<std::string>& examples = at_deflate ? g_main_examples : g_main_other_examples;
  if (!joins && examples.size() < (at_deflate ? 2u : 1u)) {
    std::string text;
    for (size_t i = 0; i < trace.frames.size() && i < 12; i++) {
      text += "    #" + std::to_string(i) + " " + describe_frame(trace.frames[i]) + "\n";
    }
    examples.push_back(text);
  }
}

// The object whose deflate libzip calls: libz.so.1 where the JDK links the system zlib, libzip.so
// where it carries zlib inside itself (not exported, or exported from libzip itself).
std::string zlib_library() {
  char* home = nullptr;
  if (g_jvmti->GetSystemProperty("java.home", &home) != JVMTI_ERROR_NONE || home == nullptr) return "libzip.so";
  const std::string libzip = std::string(home) + "/lib/libzip.so";
  g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(home));
  void* handle = dlopen(libzip.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return "libzip.so";
  Dl_info info{};
  void* deflate = dlsym(handle, "deflate");  // libzip, then the objects it needs
  const bool found = deflate != nullptr && dladdr(deflate, &info) != 0 && info.dli_fname != nullptr;
  dlclose(handle);
  std::fprintf(stderr, "ZLIB: deflate as libzip.so sees it: %s\n", found ? info.dli_fname : "not exported (inside it)");
  return found ? basename_of(info.dli_fname) : "libzip.so";
}

// A counter of the library that must equal what the agent counted.
bool same(const char* what, int64_t library, int64_t agent) {
  if (library == agent) return true;
  fail("%s: the library counted %lld, the agent %lld", what, (long long)library, (long long)agent);
  return false;
}

}  // namespace

void record_trace(const Trace& trace) {
  KindStats& k = g_kinds[trace.kind];
  k.delivered++;
  g_native_frames += trace.native_frames;
  for (const jvmkitNativeEnd end : trace.all_markers) {
    g_markers[end]++;
    k.markers[end]++;
  }
  if (trace.java_frames > 0) k.with_java++;
  if (trace.java_frames == 0) k.native_only++;
  if (trace.java_frames == 0 && trace.markers == 0) k.first_frame++;
  for (const Frame& f : trace.frames) {
    if (!f.java && f.library != nullptr) g_frames_by_library[basename_of(f.library)]++;
  }
  if (!trace.frames.empty() && !trace.frames[0].java && trace.frames[0].library != nullptr) {
    g_leaves_by_library[basename_of(trace.frames[0].library)]++;
  }
  if (trace.top_native > 0 && trace.java_frames > 0) {
    const Frame& join = trace.frames[trace.top_native + trace.markers];
    g_joins[method_name(join.method) + (join.type == JVMTI_FRAME_NATIVE ? " (native)" : "") +
            (trace.markers > 0 ? " after a marker" : "")]++;
  }
  if (trace.kind == kMain) record_main(trace);
  if (expects("upcall")) record_upcall(trace);
  if (expects("late")) record_late(trace);
}

void record_failure(ThreadKind kind, jvmkitFailureReason reason, uintptr_t pc, int64_t seq) {
  g_kinds[kind].failed++;
  if (kind == kMain && expects("upcall")) record_upcall_failure(pc);
  if (kind == kMain && expects("late")) record_late_failure(seq, pc);
  if (kind != kMain && kind != kOtherJava && g_vm_thread_failures.size() < 5) {
    g_vm_thread_failures.push_back(std::string(thread_kind_name(kind)) + " failed " + JvmkitFailureReasonName(reason) +
                                   " at pc " + mapping_of(pc));
  }
  if (reason >= 0 && reason < JVMKIT_FAILURE_REASON_COUNT) g_kinds[kind].failed_by_reason[reason]++;
}

int64_t traces_delivered() {
  int64_t n = 0;
  for (const KindStats& k : g_kinds) n += k.delivered;
  return n;
}

bool check_accounting(const SamplerTotals& s) {
  std::fprintf(stderr,
               "SAMPLER: %lld rounds, %lld signals sent, %lld handled; accepted %lld, not available %lld, "
               "unattached %lld, pool full %lld, other errors %lld\n",
               (long long)s.rounds, (long long)s.sent, (long long)s.handled, (long long)s.accepted,
               (long long)s.by_error[0], (long long)s.by_error[1], (long long)s.by_error[2], (long long)s.other_errors);
  jvmkitStackWalkCounters c{};
  jvmkitNativeCounters n{};
  JvmkitGetStackWalkCounters(&c);
  JvmkitGetNativeCounters(&n);
  int64_t failed = 0;
  for (const KindStats& k : g_kinds) failed += k.failed;
  bool ok = same("pending requests", c.pending, 0);
  ok = same("accepted requests", c.accepted, s.accepted) && ok;
  ok = same("accepted = delivered + failed", c.accepted, c.delivered + c.failed) && ok;
  ok = same("delivered traces", c.delivered, traces_delivered()) && ok;
  ok = same("failures", c.failed, failed) && ok;
  ok = same("requests refused as unattached", c.rejected_by_reason[JVMKIT_REJECT_UNATTACHED_THREAD], s.by_error[1]) &&
       ok;
  ok = same("requests refused as pool full", c.rejected_by_reason[JVMKIT_REJECT_POOL_FULL], s.by_error[2]) && ok;
  ok = same("errors other than not available, unattached, pool full", s.other_errors, 0) && ok;
  std::fprintf(stderr,
               "NATIVE COUNTERS: requests %lld (native only %lld), runs %lld (ended at Java %lld, at the first frame "
               "%lld), frames delivered %lld, markers:%s; objects prepared %lld, failed %lld, rows %lld, %.0f ms\n",
               (long long)n.requests, (long long)n.native_only, (long long)n.runs, (long long)n.ended_at_java,
               (long long)n.ended_outermost, (long long)n.frames_delivered, marker_list(n.ended_by_reason).c_str(),
               (long long)n.objects_prepared, (long long)n.objects_failed, (long long)n.unwind_rows,
               n.prepare_ns / 1e6);
  ok = same("native requests", n.requests, s.accepted) && ok;
  ok = same("native runs", n.runs, n.requests) && ok;
  ok = same("native frames delivered", n.frames_delivered, g_native_frames) && ok;
  for (int r = 0; r < JVMKIT_NATIVE_END_REASON_COUNT; r++) {
    const std::string what = std::string("markers ") + JvmkitNativeEndName(static_cast<jvmkitNativeEnd>(r));
    ok = same(what.c_str(), n.ended_by_reason[r], g_markers[r]) && ok;
  }
  if (n.ended_at_java + n.ended_outermost > n.runs) fail("more native runs ended than were captured");
  if (n.objects_prepared == 0) fail("no loaded object was prepared");
  return ok;
}

void print_summary() {
  std::fprintf(stderr,
               "TRACES by thread kind: delivered, failed, native only (reaching the first frame), with Java "
               "frames; markers\n");
  for (int kind = 0; kind < kThreadKinds; kind++) {
    const KindStats& k = g_kinds[kind];
    if (k.delivered + k.failed == 0) continue;
    std::fprintf(stderr, "  %-12s %7lld %6lld %7lld (%lld) %7lld;%s\n", thread_kind_name(static_cast<ThreadKind>(kind)),
                 (long long)k.delivered, (long long)k.failed, (long long)k.native_only, (long long)k.first_frame,
                 (long long)k.with_java, marker_list(k.markers).c_str());
    for (int r = 0; r < JVMKIT_FAILURE_REASON_COUNT; r++) {
      if (k.failed_by_reason[r] == 0) continue;
      std::fprintf(stderr, "      failed %s: %lld\n", JvmkitFailureReasonName(static_cast<jvmkitFailureReason>(r)),
                   (long long)k.failed_by_reason[r]);
    }
  }
  for (const std::string& failure : g_vm_thread_failures) std::fprintf(stderr, "  %s\n", failure.c_str());
  std::fprintf(stderr, "MARKERS:%s\n", marker_list(g_markers).c_str());
  print_top("LIBRARIES by native frames", g_frames_by_library, 8);
  print_top("LIBRARIES of the top native frame", g_leaves_by_library, 8);
  print_top("JOINS: the first Java frame below native frames", g_joins, 8);
}

bool check_deflate() {
  const std::string zlib = zlib_library();
  const KindStats& main = g_kinds[kMain];
  const int64_t samples = main.delivered + main.failed, in_zlib = g_main_traces_in_library[zlib];
  const int64_t above = g_main_native_above_java[1], joined = g_main_deflate_joins[1];
  const double joins = percent(joined, above), zlib_share = percent(in_zlib, samples);
  std::fprintf(stderr,
               "DEFLATE: main thread %lld samples (%lld failed, %lld native only); %lld with native frames above Java "
               "frames in %s, %lld of them (%.1f%%) join at %s (native) without a marker (of all %lld with native "
               "frames above Java frames: %.1f%%); %lld samples (%.1f%%) hold a frame in %s\n",
               (long long)samples, (long long)main.failed, (long long)main.native_only, (long long)above, kLoopMethod,
               (long long)joined, joins, kDeflateMethod, (long long)g_main_native_above_java[0],
               percent(g_main_deflate_joins[0], g_main_native_above_java[0]), (long long)in_zlib, zlib_share,
               zlib.c_str());
  bool ok = true;
  if (above < option_long("min_main_native", 300)) {
    fail("deflate: only %lld main-thread samples with native frames above Java frames in %s (want >= %ld)",
         (long long)above, kLoopMethod, option_long("min_main_native", 300));
    ok = false;
  }
  if (joins < option_long("min_join_pct", 95)) {
    for (const std::string& example : g_main_other_examples) g_main_examples.push_back(example);
    for (const std::string& example : g_main_examples) {
      std::fprintf(stderr, "  a sample that does not join:\n%s", example.c_str());
    }
    fail("deflate: %.1f%% join at %s without a marker (want >= %ld%%)", joins, kDeflateMethod,
         option_long("min_join_pct", 95));
    ok = false;
  }
  if (zlib_share < option_long("min_zlib_pct", 50)) {
    fail("deflate: %.1f%% of the main thread's samples in %s (want >= %ld%%)", zlib_share, zlib.c_str(),
         option_long("min_zlib_pct", 50));
    ok = false;
  }
  return ok;
}

bool check_vm_threads() {
  const long min_traces = option_long("min_per_kind", 50), min_pct = option_long("min_first_frame_pct", 90);
  bool ok = true;
  for (ThreadKind kind : {kC2Compiler, kC1Compiler, kGcWorker, kVmThread}) {
    const KindStats& k = g_kinds[kind];
    const double reached = percent(k.first_frame, k.delivered);
    std::fprintf(stderr, "VM THREADS: %-11s %lld delivered, %lld failed, %.1f%% reach the first frame; markers:%s\n",
                 thread_kind_name(kind), (long long)k.delivered, (long long)k.failed, reached,
                 marker_list(k.markers).c_str());
    if (k.delivered < min_traces) {
      fail("vm_threads: %lld traces of %s threads (want >= %ld)", (long long)k.delivered, thread_kind_name(kind),
           min_traces);
      ok = false;
    }
    if (k.failed != 0) {
      fail("vm_threads: %lld requests of %s threads failed", (long long)k.failed, thread_kind_name(kind));
      ok = false;
    }
    if (reached < min_pct) {
      fail("vm_threads: %.1f%% of the %s threads' traces reach the first frame (want >= %ld%%)", reached,
           thread_kind_name(kind), min_pct);
      ok = false;
    }
  }
  return ok;
}

}  // namespace nativetest
