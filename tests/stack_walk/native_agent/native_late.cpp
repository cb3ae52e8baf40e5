// The late library's checks (expect=late): jvmkit.test.walk.LateMain System.load()s its JNI library
// (tests/stack_walk/native/late_jni.c, path in system property jvmkit.late.lib) after sampling ran
// for a second, then spins in its C code. jvmkit's watcher prepares a library loaded while sampling
// within 50 ms plus its preparation time (docs/native_frames.md, "Libraries loaded while
// sampling"); until then a sample there ends its native part with an unprepared_library marker.
//
// A sample is in the library when the dynamic loader places its interrupted PC there (dladdr, an
// oracle independent of jvmkit's), when its trace says so (a frame of the library, or an
// unprepared_library marker at a PC of it), or when its native part above LateMain.spin ends in a
// marker (a sample in what the library calls, libc's clock_gettime and the vDSO, that did not
// unwind to it). Each is timed from the moment System.load returned
// (System.nanoTime(), which LateMain passes to the library; the sampler's handler reads the same
// clock). Each such trace is:
//   complete     no marker anywhere, and the native part above the Java frames ends in the
//                library's Java_jvmkit_test_walk_LateMain_spin, joining at LateMain.spin (native)
//   unprepared   its native part ends in an unprepared_library marker at a PC of the library
//   mislabelled  a frame at a PC of the library not said to be in it, or the reverse; or a top
//                frame not at the interrupted PC
//   other        anything else (another marker, another join, a failed request)
// Checked: no mislabelled trace; samples earlier than ready_after_ms after the load are complete or
// unprepared; of later ones >= min_complete_pct are complete. Printed: the delay from the load to
// the first complete trace and to the last marker, so the real bound can be quoted.
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "native_agent.hpp"

namespace nativetest {

namespace {

enum Outcome { kComplete, kUnprepared, kMislabelled, kOther, kOutcomes };
const char* const kOutcomeNames[kOutcomes] = {"complete", "unprepared", "mislabelled", "other"};

struct LateSample {
  int64_t time_ns;  // when the handler ran; -1 when the sampler's ring no longer held it
  Outcome outcome;
  bool top_outside;  // the top frame is not the library's (libc's clock_gettime, the vDSO)
  std::string text;  // the trace, for the first samples and every one that is not fine
};
std::vector<LateSample> g_samples;

const std::string& late_library() {
  static const std::string name = basename_of(system_property("jvmkit.late.lib").c_str());
  return name;
}

bool labelled_late(const Frame& f) {
  return !f.java && f.library != nullptr && late_library() == basename_of(f.library);
}

// The PC a frame's code is at: a return address belongs to the call before it.
uintptr_t code_pc(const Frame& f) {
  return static_cast<uintptr_t>(f.pc) - ((f.flags & JVMKIT_NATIVE_FRAME_CALLER) != 0 ? 1 : 0);
}

bool loader_says_late(uintptr_t pc) { return pc != 0 && loader_object_of(pc) == late_library(); }

// A frame of the native part above the Java frames whose library disagrees with the loader's.
bool mislabelled_frame(const Trace& trace) {
  for (int i = 0; i < trace.top_native + trace.markers && i < static_cast<int>(trace.frames.size()); i++) {
    const Frame& f = trace.frames[i];
    if (f.type == JVMKIT_FRAME_MARKER) continue;
    if (labelled_late(f) != loader_says_late(code_pc(f))) return true;
  }
  return false;
}

bool complete(const Trace& trace) {
  if (!trace.all_markers.empty() || trace.top_native == 0 || trace.java_frames == 0) return false;
  const Frame& last_native = trace.frames[trace.top_native - 1];
  const Frame& join = trace.frames[trace.top_native];
  return labelled_late(last_native) && last_native.symbol != nullptr &&
         std::strcmp(last_native.symbol, "Java_jvmkit_test_walk_LateMain_spin") == 0 && join.java &&
         join.type == JVMTI_FRAME_NATIVE && method_name(join.method) == "jvmkit.test.walk.LateMain.spin";
}

// The top part's marker, when it is unprepared_library at a PC of the library.
bool unprepared_here(const Trace& trace) {
  if (trace.markers == 0) return false;
  const Frame& marker = trace.frames[trace.top_native];
  return marker.end == JVMKIT_NATIVE_END_UNPREPARED_LIBRARY && loader_says_late(static_cast<uintptr_t>(marker.pc));
}

Outcome outcome_of(const Trace& trace, uintptr_t sampled_pc, bool pc_known) {
  if (mislabelled_frame(trace)) return kMislabelled;
  // The native part starts at the interrupted PC: a frame there, or the marker that ends it there.
  const Frame* top = trace.frames.empty() ? nullptr : &trace.frames[0];
  if (pc_known && top != nullptr && !top->java && top->pc != 0 && static_cast<uintptr_t>(top->pc) != sampled_pc) {
    return kMislabelled;
  }
  if (complete(trace)) return kComplete;
  return unprepared_here(trace) ? kUnprepared : kOther;
}

// The trace's text is kept for what is printed: the first sample of each outcome, every unprepared
// one (the last is printed; they are few), and the first failures.
void add_sample(int64_t time_ns, Outcome outcome, bool top_outside, const std::string& text) {
  static int64_t seen[kOutcomes] = {};
  const bool keep_text = seen[outcome]++ == 0 || outcome == kUnprepared || seen[outcome] <= 5;
  g_samples.push_back(LateSample{time_ns, outcome, top_outside, keep_text ? text : std::string()});
}

int64_t load_returned_ns() {
  const std::string path = system_property("jvmkit.late.lib");
  void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  const auto* moment = handle ? static_cast<const volatile jlong*>(dlsym(handle, "late_load_returned_ns")) : nullptr;
  const int64_t ns = moment ? *moment : 0;
  if (handle) dlclose(handle);
  return ns;
}

double ms_after(int64_t time_ns, int64_t load_ns) { return (time_ns - load_ns) / 1e6; }

void print_sample(const char* which, const LateSample& s, int64_t load_ns) {
  std::fprintf(stderr, "LATE SAMPLE (%s) %+.1f ms after the load, %s:\n%s", which, ms_after(s.time_ns, load_ns),
               kOutcomeNames[s.outcome], s.text.c_str());
}

// The first sample, the first complete one, the last unprepared one, and the first failures.
void print_samples(const std::vector<LateSample>& samples, int64_t load_ns) {
  const LateSample *first_complete = nullptr, *last_unprepared = nullptr;
  int failures_shown = 0;
  for (const LateSample& s : samples) {
    if (s.outcome == kComplete && first_complete == nullptr) first_complete = &s;
    if (s.outcome == kUnprepared) last_unprepared = &s;
    if ((s.outcome == kMislabelled || s.outcome == kOther) && !s.text.empty() && failures_shown++ < 5) {
      print_sample("not complete, not unprepared", s, load_ns);
    }
  }
  if (!samples.empty()) print_sample("first", samples.front(), load_ns);
  if (last_unprepared != nullptr && !last_unprepared->text.empty())
    print_sample("last unprepared", *last_unprepared, load_ns);
  if (first_complete != nullptr && !first_complete->text.empty())
    print_sample("first complete", *first_complete, load_ns);
}

// The main thread's trace below LateMain.spin whose native part above it ends in a marker.
bool stopped_above_spin(const Trace& trace) {
  if (trace.kind != kMain || trace.markers == 0 || trace.java_frames == 0) return false;
  const Frame& first_java = trace.frames[trace.top_native + trace.markers];
  return method_name(first_java.method) == "jvmkit.test.walk.LateMain.spin";
}

}  // namespace

void record_late(const Trace& trace) {
  const int64_t seq = ud_seq(trace.user_data);
  const int64_t time_ns = sampled_time_ns(seq);
  const uintptr_t pc = sampled_pc(seq);
  const bool pc_known = time_ns >= 0;
  bool in_reach = unprepared_here(trace) || stopped_above_spin(trace);
  for (const Frame& f : trace.frames) in_reach = in_reach || labelled_late(f);
  // The loader is asked about the main thread's samples only: no other thread runs the library.
  const bool at_pc = pc_known && trace.kind == kMain && loader_says_late(pc);
  if (!in_reach && !at_pc) return;
  const bool top_outside =
      !trace.frames.empty() && !labelled_late(trace.frames[0]) && trace.frames[0].type != JVMKIT_FRAME_MARKER;
  add_sample(time_ns, outcome_of(trace, pc, pc_known), top_outside, trace_text(trace));
}

void record_late_failure(int64_t seq, uintptr_t pc) {
  const int64_t time_ns = sampled_time_ns(seq);
  if (time_ns < 0 || !loader_says_late(pc)) return;
  add_sample(time_ns, kOther, false, "    (the request failed at pc " + mapping_of(pc) + ")\n");
}

bool check_late() {
  const int64_t load_ns = load_returned_ns();
  const int64_t ready_ns = load_ns + option_long("ready_after_ms", 500) * 1'000'000;
  std::vector<LateSample> samples = g_samples;
  std::stable_sort(samples.begin(), samples.end(),
                   [](const LateSample& a, const LateSample& b) { return a.time_ns < b.time_ns; });
  int64_t early[kOutcomes] = {}, late[kOutcomes] = {}, untimed = 0, complete_outside = 0;
  double first_complete_ms = -1, last_unprepared_ms = -1;
  for (const LateSample& s : samples) {
    if (s.time_ns < 0) {
      untimed++;
      continue;
    }
    (s.time_ns < ready_ns ? early : late)[s.outcome]++;
    if (s.outcome == kComplete && s.top_outside) complete_outside++;
    if (s.outcome == kComplete && first_complete_ms < 0) first_complete_ms = ms_after(s.time_ns, load_ns);
    if (s.outcome == kUnprepared) last_unprepared_ms = ms_after(s.time_ns, load_ns);
  }
  const int64_t late_all = late[kComplete] + late[kUnprepared] + late[kMislabelled] + late[kOther];
  const double complete_pct = late_all > 0 ? 100.0 * late[kComplete] / late_all : 0.0;
  std::fprintf(stderr,
               "LATE: %zu samples in %s (%lld untimed); first sample %.1f ms after System.load returned, first "
               "complete trace %.1f ms, last unprepared_library marker %.1f ms\n",
               samples.size(), late_library().c_str(), (long long)untimed,
               samples.empty() ? -1.0 : ms_after(samples.front().time_ns, load_ns), first_complete_ms,
               last_unprepared_ms);
  for (int o = 0; o < kOutcomes; o++) {
    std::fprintf(stderr, "LATE %-11s before %ld ms: %6lld, after: %6lld\n", kOutcomeNames[o],
                 option_long("ready_after_ms", 500), (long long)early[o], (long long)late[o]);
  }
  std::fprintf(stderr, "LATE: %lld complete traces (%.1f%%) start in what the library calls (clock_gettime)\n",
               (long long)complete_outside,
               100.0 * complete_outside / std::max<int64_t>(1, early[kComplete] + late[kComplete]));
  print_samples(samples, load_ns);
  bool ok = true;
  if (load_ns == 0) fail("late: late_load_returned_ns not found or never set in %s", late_library().c_str());
  if (late_all < option_long("min_late_samples", 1000)) {
    fail("late: %lld samples in the library later than %ld ms after the load (want >= %ld)", (long long)late_all,
         option_long("ready_after_ms", 500), option_long("min_late_samples", 1000));
    ok = false;
  }
  if (early[kMislabelled] + late[kMislabelled] + early[kOther] > 0) {
    fail("late: %lld mislabelled traces, %lld earlier than %ld ms ending otherwise than in unprepared_library",
         (long long)(early[kMislabelled] + late[kMislabelled]), (long long)early[kOther],
         option_long("ready_after_ms", 500));
    ok = false;
  }
  if (complete_pct < option_long("min_complete_pct", 99)) {
    fail("late: %.2f%% of the samples later than %ld ms complete (want >= %ld%%)", complete_pct,
         option_long("ready_after_ms", 500), option_long("min_complete_pct", 99));
    ok = false;
  }
  return ok && load_ns != 0;
}

}  // namespace nativetest
