// src/profiler/recording/: what a run collects. The trace callbacks of engines/ and events/ feed
// the Recording (this file), which adds each delivered trace to the call tree of its event
// (profile.hpp), with method names resolved while their class is pinned (method_resolver.hpp),
// native frames named (native_frames.hpp), the sample's thread (sample_owner.hpp,
// thread_kinds.hpp) and, for JFR, its time (timeline.hpp); and keeps the counts of the end-of-run
// report (report.hpp, native_report.hpp). outputs/ read its profiles and timeline; the controller
// (run/) makes one Recording per run. It includes only the profiler's common headers and context/.
//
// Recording: what one profiling run (start to stop) collects from the stack-trace callbacks.
//
// The stack-walk library delivers traces on its delivery thread, one at a time, as
// beginStackTrace, frames, endStackTrace (or one failure). A Recording turns them into samples of
// the current window's Profile of their event (one per event of the run: cpu, alloc, lock...) and
// keeps the run's counts. Continuous profiling cuts the run into
// windows: take_window() hands out the finished window's profile and puts a fresh one in its place,
// so that every delivered sample lands in exactly one window.
//
// Thread safety: everything is guarded by one mutex. A trace holds it from begin to end, so a dump
// or a window change never sees half a trace.
#pragma once

#include <jvmkit/stack_walk.h>
#include <jvmti.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "profiler/context/context_slots.hpp"
#include "profiler/options.hpp"
#include "profiler/recording/method_resolver.hpp"
#include "profiler/recording/native_frames.hpp"
#include "profiler/recording/native_report.hpp"
#include "profiler/recording/profile.hpp"
#include "profiler/recording/report.hpp"
#include "profiler/recording/sample_owner.hpp"
#include "profiler/recording/timeline.hpp"

namespace jvmkit::prof {

class Recording {
 public:
  Recording(JavaVM* vm, jvmtiEnv* jvmti, const Options& options, int64_t start_wall_ns, int64_t start_mono_ns);
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;

  // Each event of the run (Options::events) has its own profile, at the same index: its slot.
  static constexpr size_t kNoSlot = SIZE_MAX;
  size_t slot_of(EngineKind kind) const;
  size_t signal_slot() const { return signal_slot_; }  // the signal event's, kNoSlot when none
  size_t slots() const { return slots_.size(); }

  // --- The stack-trace callbacks (the library's delivery thread) ---
  void begin_trace(size_t slot, jboolean biased);  // takes the lock, released by end_trace
  // Returns whether the trace wants more frames (false past the depth limit).
  bool add_frame(jvmtiFrameType type, jmethodID method, jlocation location);
  // cstack=native, after begin_trace: the thread the trace was taken on (JvmkitCurrentTraceThread),
  // which names the root of a thread without a java.lang.Thread and counts its samples by kind.
  void set_trace_thread(bool java_thread, const char* name);
  // A native frame (or marker) of the trace, between its Java frames; as add_frame.
  bool add_native_frame(const NativeFrameInfo& frame);
  // A sample of the signal event: it weighs the interval.
  // CONTEXT: the thread's request context at the sample (context_slots.hpp): its label set becomes
  // the stack's outermost frame (FrameType::kLabels), its trace and span ids go to the timeline.
  void end_trace(jthread thread, pid_t tid, bool truncated, const SampleContext& context = {});
  // A sample of a JVM event (alloc, lock) of WEIGHT, with LEAF_CLASS (a Java class name) as its
  // leaf frame.
  // TAG: the sampled object's tag (alloc's live option), 0 for none. PARK: a lock sample of a parked
  // thread (not of a monitor).
  void end_event_trace(jthread thread, pid_t tid, bool truncated, int64_t weight, const std::string& leaf_class,
                       jlong tag = 0, bool park = false, const SampleContext& context = {});
  // Live: the objects of TAGS were freed; their samples leave the current window's profile (or
  // are not added, when their traces come later).
  void objects_freed(const std::vector<jlong>& tags);
  // NO_JAVA_CODE: the thread had no Java frame (a failure with no_java_frames while native frames
  // are off): counted apart from failures, as SampleCounts::no_java_code.
  void trace_failed(size_t slot, pid_t tid, bool no_java_code = false);

  // A thread started: a reused tid names a new thread.
  void thread_started(pid_t tid);
  // Wall sampling: TID failed again and again without one delivered trace (a JVM service thread).
  bool runs_no_java(pid_t tid) const;

  // A finished window: a profile per slot.
  struct Window {
    std::vector<std::unique_ptr<Profile>> profiles;
    int64_t start_wall_ns = 0;
    int64_t start_mono_ns = 0;
    int64_t duration_ns = 0;
    // JFR output: the samples since the window's last chunk, and the window's threads.
    std::vector<TimedSample> samples;
    std::vector<SampleThread> threads;
  };
  // Ends the current window at NOW_MONO_NS (NOW_WALL_NS on the wall clock) and starts the next.
  Window take_window(int64_t now_wall_ns, int64_t now_mono_ns);
  // Calls F with the current window's profiles (one per slot) and start, deliveries held off meanwhile.
  void with_current_window(const std::function<void(const std::vector<const Profile*>&, int64_t start_wall_ns)>& f);
  // JFR output: calls F with the current window's profiles, the samples since the last call (or
  // since the window began) and the window's threads, deliveries held off meanwhile. The samples
  // are handed out: the next call has those after them.
  using ChunkFunction =
      std::function<void(const std::vector<const Profile*>& profiles, const std::vector<TimedSample>& samples,
                         const std::vector<SampleThread>& threads)>;
  void take_chunk(const ChunkFunction& f);
  // Samples left out of the timeline because it was full (Timeline::kMaxSamples).
  int64_t timeline_dropped() const;

  // The run's own counts (delivered, failed, empty) and what it saw, for reports and status.
  struct Figures {
    SampleCounts counts;                    // the signal event's
    std::vector<SampleCounts> by_event;     // per slot: delivered, failed, empty
    std::vector<int64_t> samples_by_event;  // per slot: samples added to profiles, all windows
    std::unordered_map<pid_t, int64_t> failures_by_tid;
    std::unordered_map<pid_t, int64_t> no_java_code_by_tid;
    int64_t samples = 0;  // samples added to profiles, all windows, all events
    int64_t samples_in_taken_windows = 0;
    int64_t windows_taken = 0;
    int64_t biased = 0;     // delivered traces of the signal event taken at a safepoint (biased)
    int64_t truncated = 0;  // samples cut at the depth limit ([truncated] root frame)
    int64_t overflow = 0;   // samples merged into [overflow] past the profile's bound
    int64_t current_window_samples = 0;
    int64_t freed = 0;     // live: samples taken back because their objects were freed
    NativeFigures native;  // cstack=native: the traces' part (the library's tables are not in it)
  };
  Figures figures() const;

  // The run's clock starts again (a run prepared at JVM start begins sampling at VMInit).
  void restart_clock(int64_t now_wall_ns, int64_t now_mono_ns);

 private:
  // One event's profile of the current window, and what is resolved into it.
  struct Slot {
    Slot(JavaVM* vm, jvmtiEnv* jvmti, std::unique_ptr<Profile> p)
        : profile(std::move(p)), resolver(vm, jvmti, profile.get()), native_methods(profile.get()) {}
    std::unique_ptr<Profile> profile;
    MethodResolver resolver;
    NativeMethods native_methods;
    std::unordered_map<int64_t, uint32_t> thread_roots;    // the profile's thread root frames, by SampleOwner::key
    std::unordered_map<int64_t, uint32_t> nameless_roots;  // ... of virtual threads not found by name
    std::unordered_map<std::string, uint32_t> classes;     // the profile's class frames, by name
    std::unordered_map<uint32_t, uint32_t> label_frames;   // the profile's label frames, by label set
    SampleCounts counts;
    // Live: the current profile's samples of tagged objects (tag -> node, weight), and tags freed
    // before their trace arrived. Both start over with each window: earlier windows are final.
    std::unordered_map<jlong, std::pair<uint32_t, int64_t>> live;
    std::unordered_set<jlong> freed_early;
    int64_t samples_in_taken_windows = 0;
    int64_t overflow_in_taken_windows = 0;
  };

  std::unique_ptr<Profile> new_profile() const;
  void finish_trace(jthread thread, pid_t tid, bool truncated, int64_t weight, const std::string* leaf_class, jlong tag,
                    bool park = false, const SampleContext& context = {});
  uint32_t label_frame(Slot& slot, uint32_t label_set);
  uint32_t thread_root(Slot& slot, const SampleOwner& owner);
  SampleThread sample_thread(const SampleOwner& owner);
  std::string java_thread_name(jthread thread);
  int64_t java_thread_id(jthread thread);
  uint32_t class_frame(Slot& slot, const std::string& name);

  JavaVM* vm_;
  jvmtiEnv* jvmti_;
  const Options options_;

  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Slot>> slots_;
  size_t signal_slot_ = kNoSlot;
  Slot* tracing_ = nullptr;  // the slot of the trace between begin_trace and end_trace
  size_t tracing_slot_ = kNoSlot;
  // JFR output: samples with their time and thread (only then: it costs memory per sample).
  const bool timed_;
  Timeline timeline_;
  int64_t timeline_dropped_before_ = 0;  // by the timelines of windows taken
  jfieldID thread_tid_field_ = nullptr;  // java.lang.Thread.tid, looked up at the first need
  bool thread_tid_looked_up_ = false;
  int64_t window_start_wall_ns_;
  int64_t window_start_mono_ns_;
  std::vector<Frame> trace_;
  bool trace_cut_ = false;  // add_frame refused frames past the depth limit
  // cstack=native: the current trace's thread (set_trace_thread), and what its frames were.
  struct TraceThread {
    bool known = false;
    bool java = false;
    std::string name;
  };
  TraceThread trace_thread_;
  bool trace_native_ = false;  // a native frame (not a marker) was added
  bool trace_kernel_ = false;  // ... a kernel frame
  bool trace_java_ = false;    // a Java frame was added
  NativeFigures native_;
  std::unordered_map<pid_t, int64_t> failures_by_tid_;
  std::unordered_map<pid_t, int64_t> no_java_code_by_tid_;
  std::unordered_set<pid_t> delivered_tids_;  // wall only: threads with at least one trace
  int64_t windows_taken_ = 0;
  int64_t biased_ = 0;
  int64_t truncated_ = 0;
  int64_t freed_ = 0;

  // The lock a delivered trace holds from begin_trace to end_trace: the trace must reach the
  // profile as a unit, so the lock spans two callbacks, which no scoped guard can express.
  // trace_locked_ (only touched with mutex_ held) checks that every begin is paired with an end.
  bool trace_locked_ = false;

  // Wall sampling: threads whose samples failed kFailuresWithoutJava times without a delivered
  // trace. Own lock: read by the wall sampler thread at every tick.
  static constexpr int64_t kFailuresWithoutJava = 20;
  mutable std::mutex skip_mutex_;
  std::unordered_set<pid_t> without_java_;
};

// The Recording that the stack-trace callbacks feed (null when no run samples). The controller
// (run/profiler.cpp) sets it for the run that has the stack-walk library enabled, and clears it
// once Disable has delivered every outcome.
Recording* current_recording();
void set_current_recording(Recording* recording);

}  // namespace jvmkit::prof
