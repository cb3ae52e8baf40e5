// The JVMTI agent: -agentpath:libjvmkit_prof.so=OPTIONS.
//
// Life of a run:
//   Agent_OnLoad  parse options (a bad one: message + JNI_ERR, the JVM exits), install the
//                 (inactive) signal handler, start the engine, so that an event that cannot be
//                 sampled (a hardware event without a PMU) fails here too.
//   VMInit        enable the stack-walk API (it wants the live phase and a Java thread), pick up
//                 threads started since OnLoad, activate the handler: sampling starts.
//   ThreadStart/End  tell the engine (per-thread timers follow Java threads).
//   VMDeath       stop sampling, DisableRequestStackTrace (which delivers every outstanding
//                 request), write the output, print the report.
// Stack traces are only ever obtained through stack_walk.h (RequestStackTrace from the handler);
// the profiler's own jvmtiEnv is used for thread events and for naming methods and threads.
#include <jvmkit/stack_walk.h>
#include <jvmti.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "base/clock.hpp"
#include "base/debug_check.hpp"
#include "base/thread_id.hpp"
#include "profiler/engine.hpp"
#include "profiler/method_resolver.hpp"
#include "profiler/options.hpp"
#include "profiler/profile.hpp"
#include "profiler/report.hpp"
#include "profiler/signal_sampler.hpp"
#include "profiler/thread_info.hpp"
#include "profiler/thread_list.hpp"
#include "profiler/utf8.hpp"
#include "profiler/walk_counts.hpp"
#include "profiler/writers.hpp"

#define JVMKIT_PROF_EXPORT __attribute__((visibility("default")))

namespace jvmkit::prof {
namespace {

// The stack walker's delivery thread, by the 15 bytes of its name the kernel keeps.
bool is_walker_comm(const std::string& comm) { return comm == std::string_view(JVMKIT_WALK_THREAD_NAME).substr(0, 15); }

// Everything one profiling run owns. One instance per process (JVMTI callbacks are plain C
// functions and reach it through g_profiler).
class Profiler {
 public:
  Profiler(JavaVM* vm, jvmtiEnv* jvmti, Options options)
      : vm_(vm), jvmti_(jvmti), options_(std::move(options)), resolver_(vm, jvmti, &profile_) {}

  Error load() {
    EngineConfig config{options_.event, options_.interval, options_.signal};
    engine_ = make_engine(config);
    // Wall sampling signals every thread; threads that run no Java code (refused as non-Java by
    // the library, or failing again and again without one delivered trace) are left out.
    engine_->set_skip_filter([this](pid_t tid) { return is_known_non_java_thread(tid) || without_java_code(tid); });
    // HotSpot reports no JavaVM to JNI_GetCreatedJavaVMs until JNI_CreateJavaVM returns; the
    // stack-walk library needs it at VMInit already (stack_walk.h, JvmkitSetJavaVM).
    JvmkitSetJavaVM(vm_);
    jvmtiStackTraceCallbacks callbacks{&on_begin, &on_end, &on_frame, &on_failure};
    if (Error e = install_sampling_handler(options_.signal, jvmti_, callbacks)) return e;
    if (Error e = engine_->start(list_process_threads())) return e;
    return Error::ok();
  }

  // VMInit, on the main thread in the live phase, where stack_walk.h wants Enable called. An Error
  // means the run goes on without profiling.
  Error start() {
    jvmtiError err = EnableRequestStackTrace(jvmti_);
    if (err != JVMTI_ERROR_NONE) {
      engine_->stop();
      return Error("EnableRequestStackTrace failed (JVMTI error " + std::to_string(static_cast<int>(err)) +
                   "): not profiling");
    }
    enabled_ = true;
    // Threads created during start-up were never reported by ThreadStart: list them again. The
    // stack walker's delivery thread, just started by Enable, runs no Java code: leave it out.
    for (pid_t tid : list_process_threads()) {
      if (!is_walker_comm(thread_os_name(tid))) engine_->thread_started(tid);
    }
    start_wall_ns_ = jvmkit::clock_ns(CLOCK_REALTIME);
    start_mono_ns_ = jvmkit::monotonic_ns();
    set_sampling_active(true);
    return Error::ok();
  }

  void thread_started(pid_t tid) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      thread_roots_.erase(tid);  // a reused tid names a new thread
    }
    if (engine_) engine_->thread_started(tid);
  }

  void thread_ended(pid_t tid) {
    if (engine_) engine_->thread_ended(tid);
  }

  // VMDeath (or Agent_OnUnload when VMDeath never came).
  void finish() {
    if (finished_) return;
    finished_ = true;
    set_sampling_active(false);
    if (engine_) engine_->stop();
    if (enabled_) DisableRequestStackTrace(jvmti_);  // every accepted request gets its outcome first
    enabled_ = false;
    double seconds = start_mono_ns_ > 0 ? static_cast<double>(jvmkit::monotonic_ns() - start_mono_ns_) / 1e9 : 0;

    std::lock_guard<std::mutex> lock(mutex_);
    ReportInput report = report_input(seconds);
    Error written = write_profile(profile_, options_, run_info(seconds));
    report.output = output_outcome(written, options_, profile_.total_samples());
    std::string text = report_text(report);
    std::fputs(text.c_str(), stderr);
    std::fflush(stderr);
  }

 private:
  // --- Stack-trace callbacks: on the library's delivery thread, one trace at a time. ---
  static void JNICALL on_begin(jthread /*thread*/, jboolean /*biased*/, void* /*user_data*/);
  static jint JNICALL on_frame(jvmtiFrameType type, jmethodID method, jlocation location, void* user_data);
  static void JNICALL on_end(jthread thread, void* user_data);
  static void JNICALL on_failure(jthread thread, void* user_data);

  // The report's counts and top methods (mutex_ held; the output line is added by the caller).
  ReportInput report_input(double seconds) const {
    ReportInput report;
    report.engine = engine_ ? engine_->description() : "";
    report.seconds = seconds;
    report.counts = counts_;
    read_signal_counts(&report.counts);
    add_stack_walk_counts(&report.counts);
    report.counts.failed_by_thread = failures_by_thread(failures_by_tid_);
    report.top = top_methods(profile_, 10);
    report.total_samples = profile_.total_samples();
    return report;
  }

  // What the writers say about the run besides the samples.
  RunInfo run_info(double seconds) const {
    RunInfo info;
    info.title = "jvmkit profile: " + std::string(options_.event->name);
    info.event =
        std::string(options_.event->name) + ", interval " + describe_interval(*options_.event, options_.interval);
    info.value_type = std::string(options_.event->pprof_type);
    info.value_unit = std::string(options_.event->pprof_unit);
    info.interval = options_.interval;
    info.start_time_ns = start_wall_ns_;
    info.program = program_name();
    info.duration_ns = static_cast<int64_t>(seconds * 1e9);
    return info;
  }

  // What the JVM runs, for pprof's Mapping: the main class, or the jar's file name
  // (sun.java.command's first word); "java" when unknown.
  std::string program_name() const {
    char* command = nullptr;
    if (jvmti_->GetSystemProperty("sun.java.command", &command) != JVMTI_ERROR_NONE || command == nullptr) {
      return "java";
    }
    std::string first = utf8_from_modified(command);
    jvmti_->Deallocate(reinterpret_cast<unsigned char*>(command));
    first = first.substr(0, first.find(' '));
    if (const size_t slash = first.rfind('/'); slash != std::string::npos) first = first.substr(slash + 1);
    return first.empty() ? "java" : first;
  }

  // The calling thread's JNIEnv, or null.
  JNIEnv* current_jni() const {
    JNIEnv* jni = nullptr;
    if (vm_->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) != JNI_OK) return nullptr;
    return jni;
  }

  // The synthetic root frame of thread TID ("threads" option): "[name tid=N]", made once per tid.
  uint32_t thread_root(jthread thread, pid_t tid) {
    auto it = thread_roots_.find(tid);
    if (it != thread_roots_.end()) return it->second;
    std::string name = "?";
    if (thread != nullptr) {
      ThreadInfo info(jvmti_, current_jni(), thread);
      if (info.name() != nullptr) name = utf8_from_modified(info.name());
    }
    uint32_t id = profile_.add_method("[" + name + " tid=" + std::to_string(tid) + "]", "");
    thread_roots_[tid] = id;
    return id;
  }

  JavaVM* vm_;
  jvmtiEnv* jvmti_;
  Options options_;
  std::unique_ptr<Engine> engine_;
  std::atomic<bool> enabled_{false};
  std::atomic<bool> finished_{false};
  int64_t start_wall_ns_ = 0;
  int64_t start_mono_ns_ = 0;

  // Touched by the delivery thread (callbacks) and by finish(): guarded by mutex_.
  std::mutex mutex_;
  Profile profile_;
  MethodResolver resolver_;
  SampleCounts counts_;
  std::vector<Frame> trace_;
  std::unordered_map<pid_t, uint32_t> thread_roots_;
  std::unordered_map<pid_t, int64_t> failures_by_tid_;
  std::unordered_set<pid_t> delivered_tids_;  // wall only: threads with at least one trace

  // The lock a delivered trace holds from on_begin to on_end. The library delivers a trace as
  // beginStackTrace, its frames, endStackTrace, one trace at a time on its delivery thread, and
  // the trace must reach the profile as a unit: finish() could otherwise write the profile, or
  // on_failure touch the counts, halfway through a trace. So the lock spans two callbacks, which
  // no scoped guard can express; these two take and release it, and trace_locked_ (only touched
  // with mutex_ held) checks that every begin is paired with an end.
  void lock_for_trace() {
    mutex_.lock();
    JVMKIT_DCHECK(!trace_locked_);
    trace_locked_ = true;
  }
  void unlock_after_trace() {
    JVMKIT_DCHECK(trace_locked_);
    trace_locked_ = false;
    mutex_.unlock();
  }
  bool trace_locked_ = false;

  // Threads whose samples failed kFailuresWithoutJava times without a single delivered trace
  // (JVM service threads: Signal Dispatcher, Service Thread...). Own lock: read by the wall
  // sampler thread at every tick.
  static constexpr int64_t kFailuresWithoutJava = 20;
  mutable std::mutex skip_mutex_;
  std::unordered_set<pid_t> without_java_;

  bool without_java_code(pid_t tid) const {
    std::lock_guard<std::mutex> lock(skip_mutex_);
    return without_java_.count(tid) != 0;
  }
};

Profiler* g_profiler = nullptr;

void JNICALL Profiler::on_begin(jthread, jboolean, void*) {
  Profiler* p = g_profiler;
  p->lock_for_trace();  // released in on_end
  p->trace_.clear();
}

jint JNICALL Profiler::on_frame(jvmtiFrameType type, jmethodID method, jlocation location, void*) {
  Profiler* p = g_profiler;
  JVMKIT_DCHECK(p->trace_locked_);  // between on_begin and on_end
  Frame f;
  p->resolver_.resolve(method, location, &f.method, &f.line);
  switch (type) {
    case JVMTI_FRAME_INTERPRETER:
      f.type = FrameType::kInterpreted;
      break;
    case JVMTI_FRAME_INLINE:
      f.type = FrameType::kInlined;
      break;
    case JVMTI_FRAME_NATIVE:
      f.type = FrameType::kNative;
      break;
    default:
      f.type = FrameType::kJit;
  }
  p->trace_.push_back(f);
  return JVMKIT_FRAME_CONTINUE;
}

void JNICALL Profiler::on_end(jthread thread, void* user_data) {
  Profiler* p = g_profiler;
  const pid_t tid = tid_from_user_data(user_data);
  p->counts_.delivered++;
  if (p->options_.event->engine == EngineKind::kWall) p->delivered_tids_.insert(tid);
  if (p->trace_.empty()) {
    p->counts_.empty++;
  } else {
    if (p->options_.threads) {
      Frame root;
      root.method = p->thread_root(thread, tid);
      root.type = FrameType::kThread;
      p->trace_.push_back(root);
    }
    p->profile_.add_sample(p->trace_);
  }
  p->unlock_after_trace();
}

void JNICALL Profiler::on_failure(jthread, void* user_data) {
  Profiler* p = g_profiler;
  std::lock_guard<std::mutex> lock(p->mutex_);
  p->counts_.failed++;
  pid_t tid = tid_from_user_data(user_data);
  int64_t failures = ++p->failures_by_tid_[tid];
  if (failures >= kFailuresWithoutJava && p->delivered_tids_.count(tid) == 0) {
    std::lock_guard<std::mutex> skip_lock(p->skip_mutex_);
    p->without_java_.insert(tid);
  }
}

// --- JVMTI events of the profiler's own environment ---
void JNICALL on_vm_init(jvmtiEnv*, JNIEnv*, jthread) {
  if (g_profiler == nullptr) return;
  if (Error e = g_profiler->start()) {
    std::fprintf(stderr, "jvmkit profiler: %s\n", e.message().c_str());
  }
}
void JNICALL on_vm_death(jvmtiEnv*, JNIEnv*) {
  if (g_profiler) g_profiler->finish();
}
// The stack-walk library's delivery thread (named in stack_walk.h) runs the callbacks and no Java
// code: sampling it would only cost time and add failures.
bool is_stack_walker_thread(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread) {
  ThreadInfo info(jvmti, jni, thread);
  return info.name() != nullptr && std::strcmp(info.name(), JVMKIT_WALK_THREAD_NAME) == 0;
}

void JNICALL on_thread_start(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread) {
  if (g_profiler && !is_stack_walker_thread(jvmti, jni, thread)) g_profiler->thread_started(jvmkit::current_tid());
}
void JNICALL on_thread_end(jvmtiEnv*, JNIEnv*, jthread) {
  if (g_profiler) g_profiler->thread_ended(jvmkit::current_tid());
}

jint fail(const std::string& message) {
  std::fprintf(stderr, "jvmkit profiler: %s\n", message.c_str());
  std::fflush(stderr);
  return JNI_ERR;
}

jint load(JavaVM* vm, const char* options_text) {
  Options options;
  if (Error e = parse_options(options_text, static_cast<int>(getpid()), &options)) {
    return fail("bad option: " + e.message());
  }
  jvmtiEnv* jvmti = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_1_2) != JNI_OK) {
    return fail("cannot get a JVMTI environment");
  }
  jvmtiCapabilities caps{};
  caps.can_get_source_file_name = 1;
  caps.can_get_line_numbers = 1;
  jvmti->AddCapabilities(&caps);  // optional: without them frames simply have no file/line
  jvmtiEventCallbacks callbacks{};
  callbacks.VMInit = on_vm_init;
  callbacks.VMDeath = on_vm_death;
  callbacks.ThreadStart = on_thread_start;
  callbacks.ThreadEnd = on_thread_end;
  jvmti->SetEventCallbacks(&callbacks, sizeof(callbacks));
  for (jvmtiEvent ev : {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END}) {
    jvmti->SetEventNotificationMode(JVMTI_ENABLE, ev, nullptr);
  }
  auto* profiler = new Profiler(vm, jvmti, options);  // lives until the process ends
  g_profiler = profiler;
  if (Error e = profiler->load()) {
    g_profiler = nullptr;  // leaked on purpose: a stray callback must never see freed memory
    return fail(e.message());
  }
  return JNI_OK;
}

}  // namespace
}  // namespace jvmkit::prof

extern "C" {

JVMKIT_PROF_EXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void* /*reserved*/) {
  return jvmkit::prof::load(vm, options);
}

JVMKIT_PROF_EXPORT void JNICALL Agent_OnUnload(JavaVM* /*vm*/) {
  if (jvmkit::prof::g_profiler) jvmkit::prof::g_profiler->finish();
}

}  // extern "C"
