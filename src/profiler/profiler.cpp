#include "profiler/profiler.hpp"

#include <jvmkit/stack_walk.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "base/clock.hpp"
#include "hotspot/vm_flags.hpp"
#include "profiler/alloc_sampler.hpp"
#include "profiler/event_samples.hpp"
#include "profiler/lock_sampler.hpp"
#include "profiler/output_check.hpp"
#include "profiler/output_fallback.hpp"
#include "profiler/signal_sampler.hpp"
#include "profiler/thread_list.hpp"
#include "profiler/utf8.hpp"
#include "profiler/walk_counts.hpp"
#include "profiler/writers.hpp"

namespace jvmkit::prof {
namespace {

std::atomic<Recording*> g_recording{nullptr};

// --- Stack-trace callbacks: on the library's delivery thread, one trace at a time, only while a
// run has the library enabled (Disable delivers every outcome before it returns). ---
void JNICALL on_begin(jthread /*thread*/, jboolean biased, void* /*user_data*/) {
  Recording* recording = g_recording.load(std::memory_order_acquire);
  recording->begin_trace(recording->signal_slot(), biased);
}
jint JNICALL on_frame(jvmtiFrameType type, jmethodID method, jlocation location, void* /*user_data*/) {
  const bool more = g_recording.load(std::memory_order_acquire)->add_frame(type, method, location);
  return more ? JVMKIT_FRAME_CONTINUE : JVMKIT_FRAME_STOP;
}
void JNICALL on_end(jthread thread, void* user_data) {
  g_recording.load(std::memory_order_acquire)
      ->end_trace(thread, tid_from_user_data(user_data), JvmkitCurrentTraceTruncated() == JNI_TRUE);
}
void JNICALL on_failure(jthread /*thread*/, void* user_data) {
  Recording* recording = g_recording.load(std::memory_order_acquire);
  recording->trace_failed(recording->signal_slot(), tid_from_user_data(user_data));
}

// The stack walker's delivery thread, by the 15 bytes of its name the kernel keeps.
bool is_walker_comm(const std::string& comm) { return comm == std::string_view(JVMKIT_WALK_THREAD_NAME).substr(0, 15); }

// The process' threads, less the stack walker's (it runs no Java code).
std::vector<pid_t> threads_to_sample() {
  std::vector<pid_t> out;
  for (pid_t tid : list_process_threads()) {
    if (!is_walker_comm(thread_os_name(tid))) out.push_back(tid);
  }
  return out;
}

// The process-wide counters (the signal handler's, the stack-walk library's) now.
SampleCounts process_counts() {
  SampleCounts counts;
  read_signal_counts(&counts);
  add_stack_walk_counts(&counts);
  return counts;
}

std::string seconds_text(int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f", static_cast<double>(ns) / 1e9);
  return text;
}

// What the JVM runs, for pprof's Mapping: the main class, or the jar's file name
// (sun.java.command's first word); "java" when unknown.
std::string program_name(jvmtiEnv* jvmti) {
  char* command = nullptr;
  if (jvmti->GetSystemProperty("sun.java.command", &command) != JVMTI_ERROR_NONE || command == nullptr) return "java";
  std::string first = utf8_from_modified(command);
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(command));
  first = first.substr(0, first.find(' '));
  if (const size_t slash = first.rfind('/'); slash != std::string::npos) first = first.substr(slash + 1);
  return first.empty() ? "java" : first;
}

// java.io.tmpdir ("" when unknown): where a profile goes that cannot be written where asked.
std::string java_tmpdir(jvmtiEnv* jvmti) {
  char* value = nullptr;
  if (jvmti->GetSystemProperty("java.io.tmpdir", &value) != JVMTI_ERROR_NONE || value == nullptr) return "";
  std::string out = value;
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(value));
  return out;
}

// The option that named OPTIONS' file, for messages: "file=/x/p.html", or the default's name.
std::string file_label(const Options& options) {
  return options.file_given ? "file=" + options.file : "the default output file " + options.file;
}

// The JNIEnv of the calling thread, null when it is not attached to the JVM.
JNIEnv* current_jni(JavaVM* vm) {
  JNIEnv* jni = nullptr;
  return vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) == JNI_OK ? jni : nullptr;
}

// How a JVM event is sampled, for the report.
std::string event_description(const EventSpec& event, const Options& options) {
  if (event.engine == EngineKind::kAlloc) {
    return "JVMTI SampledObjectAlloc, a sample every " + describe_size(options.alloc_bytes) +
           " allocated on average (weights: bytes each sample stands for)";
  }
  return "contended monitors (JVMTI MonitorContendedEnter/Entered) and parked threads (Unsafe.park), waits of " +
         describe_interval(event, options.lock_ns) + " or more (weights: ns waited)";
}

}  // namespace

Recording* current_recording() { return g_recording.load(std::memory_order_acquire); }

// One run: start to stop.
struct Profiler::Run {
  Options options;
  std::unique_ptr<Recording> recording;
  std::unique_ptr<Engine> engine;  // also guarded by engine_mutex_
  int64_t start_wall_ns = 0;
  int64_t start_mono_ns = 0;
  SampleCounts base;                // process_counts() when the run started
  bool enabled = false;             // the stack-walk library is enabled for this run
  bool attached = false;            // started in the live phase (Agent_OnAttach)
  bool coarse_code_before = false;  // attached to a JVM whose earlier compilations are coarse
  WindowFiles windows{0};
  int64_t window_errors = 0;
  std::string last_window;
  std::string program;
  std::string fallback_dir;    // where a profile goes that cannot be written where asked
  bool alloc_started = false;  // SampledObjectAlloc enabled
  bool lock_started = false;   // monitor events enabled (and Unsafe.park hooked, unless park_note says why not)
  std::string park_note;
  int files_per_window = 1;                  // continuous mode: collapsed output of several events is a file per event
  EventRequestCounts alloc_base, lock_base;  // event_request_counts() when the run started
};

Profiler::Profiler(JavaVM* vm, jvmtiEnv* jvmti) : vm_(vm), jvmti_(jvmti) {}

Error Profiler::install_handler(int signal) {
  if (installed_signals_.count(signal) != 0) return Error::ok();
  jvmtiStackTraceCallbacks callbacks{&on_begin, &on_end, &on_frame, &on_failure};
  if (Error e = install_sampling_handler(signal, jvmti_, callbacks)) return e;
  installed_signals_.insert(signal);
  return Error::ok();
}

// Sets up a run: handler, recording, engine. LIVE: in the live phase (the stack-walk library is
// enabled at once, before the engine's first signal); else the library waits for VMInit.
Error Profiler::begin_run(const Options& options, bool live) {
  auto run = std::make_unique<Run>();
  run->options = options;
  run->attached = live;
  // keep= counts windows; a window of collapsed output of several events is a file per event.
  const bool file_per_event = options.format == OutputFormat::kCollapsed && options.events.size() > 1;
  run->files_per_window = file_per_event ? static_cast<int>(options.events.size()) : 1;
  run->windows = WindowFiles(options.keep * run->files_per_window);
  run->start_wall_ns = jvmkit::clock_ns(CLOCK_REALTIME);
  run->start_mono_ns = jvmkit::monotonic_ns();
  if (Error e = install_handler(options.signal)) return e;
  // HotSpot reports no JavaVM to JNI_GetCreatedJavaVMs until JNI_CreateJavaVM returns; the
  // stack-walk library needs it at VMInit already (stack_walk.h, JvmkitSetJavaVM).
  JvmkitSetJavaVM(vm_);
  if (jvmtiError err = JvmkitSetMaxStackDepth(options.depth); err != JVMTI_ERROR_NONE) {
    return Error("depth=" + std::to_string(options.depth) + ": the stack walker refuses it (JVMTI error " +
                 std::to_string(static_cast<int>(err)) + ")");
  }
  run->recording = std::make_unique<Recording>(vm_, jvmti_, options, run->start_wall_ns, run->start_mono_ns);
  g_recording.store(run->recording.get(), std::memory_order_release);
  if (live) {
    // Code compiled before this attach lacks the debug records that place a sample between
    // safepoints (HotSpot records them when -XX:+DebugNonSafepoints is given or, by default, while
    // an agent watches compilations, as the stack-walk library does from now on).
    const std::optional<bool> exact = hotspot::bool_flag("DebugNonSafepoints");
    run->coarse_code_before = exact.has_value() && !*exact;
    if (jvmtiError err = EnableRequestStackTrace(jvmti_); err != JVMTI_ERROR_NONE) {
      g_recording.store(nullptr, std::memory_order_release);
      return Error("EnableRequestStackTrace failed (JVMTI error " + std::to_string(static_cast<int>(err)) + ")");
    }
    run->enabled = true;
  }
  if (options.event != nullptr) {
    auto engine = make_engine(EngineConfig{options.event, options.interval, options.signal});
    // Wall sampling signals every thread; threads that run no Java code (refused as non-Java by
    // the library, or failing again and again without one delivered trace) are left out.
    Recording* recording = run->recording.get();
    engine->set_skip_filter(
        [recording](pid_t tid) { return is_known_non_java_thread(tid) || recording->runs_no_java(tid); });
    if (Error e = engine->start(live ? threads_to_sample() : list_process_threads())) {
      if (run->enabled) DisableRequestStackTrace(jvmti_);
      g_recording.store(nullptr, std::memory_order_release);
      return e;
    }
    run->engine = std::move(engine);
  }
  run->base = process_counts();
  run->alloc_base = event_request_counts(EngineKind::kAlloc);
  run->lock_base = event_request_counts(EngineKind::kLock);
  run->program = live ? program_name(jvmti_) : "";
  run->fallback_dir = fallback_directory(live ? java_tmpdir(jvmti_) : "");
  std::unique_lock<std::shared_mutex> lock(engine_mutex_);
  run_ = std::move(run);
  return Error::ok();
}

// Sampling starts: the library is enabled (at VMInit for a run prepared at load), the handler
// acts, and continuous mode gets its window thread.
Error Profiler::activate_run() {
  Run& run = *run_;
  if (!run.enabled) {
    if (jvmtiError err = EnableRequestStackTrace(jvmti_); err != JVMTI_ERROR_NONE) {
      return Error("EnableRequestStackTrace failed (JVMTI error " + std::to_string(static_cast<int>(err)) + ")");
    }
    run.enabled = true;
    run.program = program_name(jvmti_);
    run.fallback_dir = fallback_directory(java_tmpdir(jvmti_));
    // Threads created during start-up were never reported by ThreadStart: list them again.
    std::shared_lock<std::shared_mutex> lock(engine_mutex_);
    if (run.engine) {
      for (pid_t tid : threads_to_sample()) run.engine->thread_started(tid);
    }
    run.start_wall_ns = jvmkit::clock_ns(CLOCK_REALTIME);
    run.start_mono_ns = jvmkit::monotonic_ns();
    run.recording->restart_clock(run.start_wall_ns, run.start_mono_ns);
  }
  if (Error e = start_jvm_events()) return e;
  set_sampling_active(true);
  if (run.options.loop_ns > 0) {
    loop_stop_ = false;
    loop_thread_ = std::thread([this] { loop_main(); });
  }
  return Error::ok();
}

// Stops everything that costs: the window thread, the handler, the engine's timers, and the
// stack-walk library (which first delivers every accepted request into the recording).
void Profiler::end_sampling() {
  Run& run = *run_;
  if (loop_thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(loop_mutex_);
      loop_stop_ = true;
    }
    loop_wake_.notify_all();
    loop_thread_.join();
  }
  set_sampling_active(false);
  {
    std::unique_lock<std::shared_mutex> lock(engine_mutex_);
    if (run.engine) run.engine->stop();
  }
  stop_jvm_events();
  if (run.enabled) DisableRequestStackTrace(jvmti_);
  run.enabled = false;
  g_recording.store(nullptr, std::memory_order_release);
}

// alloc's live option: the samples of objects freed since the last call leave the profile.
void Profiler::apply_freed_objects() {
  if (run_->options.live) run_->recording->objects_freed(take_freed_tags());
}

// The JVM events of the run (alloc, lock), in the live phase with the stack-walk library enabled.
Error Profiler::start_jvm_events() {
  Run& run = *run_;
  if (run.options.has(EngineKind::kAlloc)) {
    if (Error e = start_alloc_sampling(jvmti_, run.options.alloc_bytes, run.options.live)) return e;
    run.alloc_started = true;
  }
  if (run.options.has(EngineKind::kLock)) {
    if (Error e = start_lock_sampling(jvmti_, current_jni(vm_), run.options.lock_ns, &run.park_note)) return e;
    run.lock_started = true;
  }
  return Error::ok();
}

// Turns the JVM events off; Unsafe.park gets its own code back. Requests made meanwhile are
// delivered by the Disable that follows (or refused by the library once it is disabled).
void Profiler::stop_jvm_events() {
  Run& run = *run_;
  if (run.alloc_started) stop_alloc_sampling(jvmti_);
  if (run.lock_started) stop_lock_sampling(jvmti_, current_jni(vm_));
  run.alloc_started = false;
  run.lock_started = false;
}

Error Profiler::prepare(const Options& options) {
  std::lock_guard<std::mutex> lock(control_mutex_);
  // Before any work: a profile that could not be written would be lost when the JVM exits.
  if (Error e = check_output(file_label(options), options, static_cast<int>(getpid()), clock_ns(CLOCK_REALTIME))) {
    return e;
  }
  return begin_run(options, false);
}

void Profiler::vm_init() {
  std::lock_guard<std::mutex> lock(control_mutex_);
  if (!run_) return;
  if (Error e = activate_run()) {
    std::fprintf(stderr, "jvmkit profiler: %s: not profiling\n", e.message().c_str());
    end_sampling();
    drop_run();
  }
}

// Forgets the run (its engine is stopped): thread events see none from now on.
void Profiler::drop_run() {
  std::unique_lock<std::shared_mutex> lock(engine_mutex_);
  run_.reset();
}

Answer Profiler::execute(const Options& options) {
  std::lock_guard<std::mutex> lock(control_mutex_);
  if (dead_) return {AnswerCode::kNotRunning, "the JVM is shutting down"};
  switch (options.action) {
    case Action::kStart:
      return start(options);
    case Action::kStop:
      return stop(options);
    case Action::kDump:
      return dump(options);
    case Action::kStatus:
      return status();
  }
  return {AnswerCode::kBadOption, "unknown action"};
}

Answer Profiler::start(const Options& options) {
  if (run_) {
    return {AnswerCode::kAlreadyRunning, "already running (" + events_text(run_->options) + " since " +
                                             iso_utc(run_->start_wall_ns) + "); stop it first"};
  }
  if (Error e = check_output(file_label(options), options, static_cast<int>(getpid()), clock_ns(CLOCK_REALTIME))) {
    return {AnswerCode::kCannotWrite, "cannot start: " + e.message()};
  }
  if (Error e = begin_run(options, true)) return {AnswerCode::kCannotStart, "cannot start: " + e.message()};
  if (Error e = activate_run()) {
    end_sampling();
    drop_run();
    return {AnswerCode::kCannotStart, "cannot start: " + e.message()};
  }
  std::string text = "started " + sampling_text(options);
  if (!run_->park_note.empty()) text += " (" + run_->park_note + ": monitors only)";
  if (options.loop_ns > 0) {
    text += ", a profile every " + seconds_text(options.loop_ns) + " s to " + options.file;
    if (options.keep > 0) text += " (the last " + std::to_string(options.keep) + " kept)";
  }
  return {AnswerCode::kOk, text};
}

// "not running", and what the last run was.
std::string Profiler::not_running_text() const {
  return last_run_.empty() ? "not running" : "not running (last run: " + last_run_ + ")";
}

// The output options of a stop or dump: its own file (and format) when it names one, else the
// run's file (the one start was given), in its own format when it names one.
Options Profiler::output_options(const Options& given) const {
  Options out = run_->options;
  if (given.file_given) {
    out.file = given.file;
    out.format = given.format;
    out.annotate = given.annotate;
  } else if (given.format_given) {
    out.format = given.format;
  }
  return out;
}

Answer Profiler::stop(const Options& given) {
  if (!run_) return {AnswerCode::kNotRunning, not_running_text()};
  end_sampling();
  Run& run = *run_;
  apply_freed_objects();
  const Options output = output_options(given);
  Recording::Window last = run.recording->take_window(jvmkit::clock_ns(CLOCK_REALTIME), jvmkit::monotonic_ns());
  const std::vector<const Profile*> profiles = profile_list(last.profiles);
  OutputResult written;
  std::string line;
  if (run.options.loop_ns > 0 && !given.file_given) {
    written = write_window(last);
    line = written.error
               ? output_result_lines(written, output.format, sample_counts(profiles))
               : "wrote " + std::to_string(run.windows.total_written() / run.files_per_window) + " windows to " +
                     run.options.file +
                     " (last: " + (written.files.empty() ? std::string("none") : written.files.back().path) + ")";
  } else {
    written = write_output(output, profiles, last.start_wall_ns, last.duration_ns);
    line = output_result_lines(written, output.format, sample_counts(profiles));
  }
  std::string text = report(line, profiles);
  // One line: a file per event is a line each in the report, a "; " here.
  std::string files = line;
  for (size_t at = files.find('\n'); at != std::string::npos; at = files.find('\n', at)) files.replace(at, 1, "; ");
  last_run_ = events_text(run.options) + " from " + iso_utc(run.start_wall_ns) + " to " +
              iso_utc(jvmkit::clock_ns(CLOCK_REALTIME)) + ", " + files;
  drop_run();
  return {written.error ? AnswerCode::kCannotWrite : AnswerCode::kOk, text};
}

Answer Profiler::dump(const Options& given) {
  if (!run_) return {AnswerCode::kNotRunning, not_running_text()};
  const Options output = output_options(given);
  OutputResult written;
  std::string line;
  apply_freed_objects();
  run_->recording->with_current_window([&](const std::vector<const Profile*>& profiles, int64_t start_wall_ns) {
    const int64_t duration = jvmkit::clock_ns(CLOCK_REALTIME) - start_wall_ns;
    written = write_output(output, profiles, start_wall_ns, duration);
    line = output_result_lines(written, output.format, sample_counts(profiles));
  });
  return {written.error ? AnswerCode::kCannotWrite : AnswerCode::kOk, line};
}

Answer Profiler::status() const {
  if (!run_) {
    return {AnswerCode::kOk, not_running_text()};
  }
  const Run& run = *run_;
  const Recording::Figures f = run.recording->figures();
  const int64_t elapsed = jvmkit::monotonic_ns() - run.start_mono_ns;
  std::string text = "running: " + sampling_text(run.options) + ", since " + iso_utc(run.start_wall_ns) + " (" +
                     seconds_text(elapsed) + " s), " + std::to_string(f.samples) + " samples";
  if (run.options.loop_ns == 0)
    text += "\noutput: " + run.options.file + " (stop and dump write it unless given a file)";
  if (run.options.loop_ns > 0) {
    text += "\ncontinuous: a window every " + seconds_text(run.options.loop_ns) + " s to " + run.options.file + ", " +
            std::to_string(f.windows_taken) + " written";
    if (!run.last_window.empty()) text += " (last: " + run.last_window + ")";
  }
  return {AnswerCode::kOk, text};
}

void Profiler::vm_death() {
  std::lock_guard<std::mutex> lock(control_mutex_);
  if (dead_) return;
  if (run_) {
    Options keep;
    keep.action = Action::kStop;
    Answer answer = stop(keep);
    std::fputs(answer.text.c_str(), stderr);
    if (!answer.text.empty() && answer.text.back() != '\n') std::fputc('\n', stderr);
    std::fflush(stderr);
  }
  dead_ = true;
}

void Profiler::thread_started(pid_t tid) {
  std::shared_lock<std::shared_mutex> lock(engine_mutex_);
  if (!run_ || !run_->engine) return;
  run_->recording->thread_started(tid);
  run_->engine->thread_started(tid);
}

void Profiler::thread_ended(pid_t tid) {
  std::shared_lock<std::shared_mutex> lock(engine_mutex_);
  if (run_ && run_->engine) run_->engine->thread_ended(tid);
}

// Continuous mode: at the end of each window, the finished profile is written and a new window
// begins. Sleeps in between (no CPU); woken early by end_sampling().
void Profiler::loop_main() {
  const int64_t window = run_->options.loop_ns;
  int64_t next = run_->start_mono_ns + window;
  std::unique_lock<std::mutex> lock(loop_mutex_);
  while (!loop_stop_) {
    const int64_t wait_ns = next - jvmkit::monotonic_ns();
    if (wait_ns > 0) {
      loop_wake_.wait_for(lock, std::chrono::nanoseconds(wait_ns));
      continue;  // re-checks the stop flag and the time
    }
    lock.unlock();
    apply_freed_objects();
    Recording::Window done = run_->recording->take_window(jvmkit::clock_ns(CLOCK_REALTIME), jvmkit::monotonic_ns());
    const OutputResult written = write_window(done);
    if (written.error) {
      const std::string lines =
          output_result_lines(written, run_->options.format, sample_counts(profile_list(done.profiles)));
      for (size_t start = 0; start < lines.size();) {
        const size_t end = std::min(lines.find('\n', start), lines.size());
        std::fprintf(stderr, "jvmkit profiler: %s\n", lines.substr(start, end - start).c_str());
        start = end + 1;
      }
    }
    next += window;
    // After a long stall (a suspended process), the next window starts now, not in the past.
    if (next <= jvmkit::monotonic_ns()) next = jvmkit::monotonic_ns() + window;
    lock.lock();
  }
}

// Writes a continuous-mode window to the run's file pattern (or the fallback) and applies keep=,
// which counts fallback files as window files.
OutputResult Profiler::write_window(const Recording::Window& window) {
  Run& run = *run_;
  OutputResult result =
      write_output(run.options, profile_list(window.profiles), window.start_wall_ns, window.duration_ns);
  for (const WrittenFile& file : result.files) run.windows.written(file.path);
  if (result.error) run.window_errors++;
  if (!result.files.empty()) run.last_window = result.files.back().path;
  return result;
}

// Writes PROFILES (one per event of the run) in OUTPUT's format to OUTPUT's file pattern, expanded
// for a profile that starts at START_WALL_NS and lasts DURATION_NS; to the fallback when that fails.
OutputResult Profiler::write_output(const Options& output, const std::vector<const Profile*>& profiles,
                                    int64_t start_wall_ns, int64_t duration_ns) const {
  Options expanded = output;
  expanded.file = expand_file_pattern(output.file, static_cast<int>(getpid()), start_wall_ns);
  RunInfo info;
  info.title = "jvmkit profile: " + events_text(output);
  info.event = events_text(output);
  info.start_time_ns = start_wall_ns;
  info.duration_ns = duration_ns;
  info.program = run_->program.empty() ? "java" : run_->program;
  info.window = output.loop_ns > 0;
  std::vector<EventProfile> events;
  for (size_t i = 0; i < output.events.size() && i < profiles.size(); i++) {
    const EventSpec& spec = *output.events[i];
    EventProfile e;
    e.profile = profiles[i];
    e.event = std::string(spec.name);
    e.description = std::string(spec.name) + ", " +
                    (spec.engine == EngineKind::kLock ? "waits of at least " : "interval ") +
                    describe_interval(spec, output.interval_of(spec));
    e.count_type = std::string(spec.pprof_count_type);
    e.value_type = std::string(spec.pprof_type);
    e.value_unit = std::string(spec.pprof_unit);
    e.interval = output.interval_of(spec);
    e.weighted = spec.weighted;
    events.push_back(std::move(e));
  }
  return write_with_fallback(events, expanded, info, run_->fallback_dir, static_cast<int>(getpid()),
                             jvmkit::clock_ns(CLOCK_REALTIME));
}

// The report of the run that just ended (sampling stopped), with OUTPUT_LINE last; TOP and
// SAMPLES are the written profile's.
std::string Profiler::report(const std::string& output_line, const std::vector<const Profile*>& profiles) const {
  const Run& run = *run_;
  const Recording::Figures f = run.recording->figures();
  ReportInput in;
  in.signal_event = run.options.event != nullptr;
  in.engine = run.engine ? run.engine->description() : "";
  in.seconds = static_cast<double>(jvmkit::monotonic_ns() - run.start_mono_ns) / 1e9;
  in.counts = counts_since(process_counts(), run.base);
  in.counts.delivered = f.counts.delivered;
  in.counts.failed = f.counts.failed;
  in.counts.empty = f.counts.empty;
  in.counts.failed_by_thread = failures_by_thread(f.failures_by_tid);
  const size_t signal = run.recording->signal_slot();
  if (signal != Recording::kNoSlot && signal < profiles.size()) {
    in.top = top_methods(*profiles[signal], 10);
    in.total_samples = profiles[signal]->total_samples();
  }
  for (size_t i = 0; i < run.options.events.size() && i < profiles.size(); i++) {
    if (i != signal) in.events.push_back(event_block(i, *profiles[i], f));
  }
  if (f.truncated > 0) {
    in.notes.push_back(std::to_string(f.truncated) + " samples deeper than depth=" + std::to_string(run.options.depth) +
                       " frames, cut at the root end ([truncated])");
  }
  if (f.overflow > 0) {
    in.notes.push_back(std::to_string(f.overflow) + " samples past the profile's bound of max_stacks=" +
                       std::to_string(run.options.max_stacks) + " merged into [overflow]");
  }
  int64_t with_frames = 0;  // delivered traces with frames, every event
  for (const SampleCounts& c : f.by_event) with_frames += c.delivered - c.empty;
  if (run.options.loop_ns > 0) {
    in.notes.push_back("continuous: " + std::to_string(f.windows_taken) + " windows, " +
                       std::to_string(f.samples_in_taken_windows) + " samples in them; delivered with frames " +
                       std::to_string(with_frames) +
                       (f.samples_in_taken_windows == with_frames ? " (equal)" : " (DIFFER)"));
  }
  if (f.counts.delivered > 0 && f.biased > 0) {
    // Biased traces: taken at a safepoint, or in compiled code whose debug information places a
    // sample only at the next safepoint (code compiled before an attach).
    char text[320];
    std::snprintf(text, sizeof(text), "%lld of %lld traces (%.1f%%) placed at a safepoint (biased)%s",
                  static_cast<long long>(f.biased), static_cast<long long>(f.counts.delivered),
                  100.0 * static_cast<double>(f.biased) / static_cast<double>(f.counts.delivered),
                  run.coarse_code_before
                      ? ": code compiled before the attach places samples only at safepoints; code compiled "
                        "since is exact (start the JVM with -XX:+UnlockDiagnosticVMOptions "
                        "-XX:+DebugNonSafepoints to have it exact everywhere)"
                      : "");
    in.notes.push_back(text);
  }
  in.output = output_line;
  return report_text(in);
}

// The report's block of the JVM event in SLOT, whose written profile is PROFILE.
EventBlock Profiler::event_block(size_t slot, const Profile& profile, const Recording::Figures& f) const {
  const Run& run = *run_;
  const EventSpec& spec = *run.options.events[slot];
  const bool lock = spec.engine == EngineKind::kLock;
  const EventRequestCounts now = event_request_counts(spec.engine);
  const EventRequestCounts& base = lock ? run.lock_base : run.alloc_base;
  EventBlock b;
  b.event = std::string(spec.name);
  b.description = event_description(spec, run.options);
  b.requested = now.requested - base.requested;
  b.dropped = now.dropped - base.dropped;
  b.delivered = f.by_event[slot].delivered;
  b.failed = f.by_event[slot].failed;
  b.empty = f.by_event[slot].empty;
  if (lock) b.below_threshold = now.below_threshold - base.below_threshold;
  b.samples = profile.total_samples();
  b.weight = profile.total_weight();
  b.unit = spec.pprof_unit == "nanoseconds" ? "ns" : std::string(spec.pprof_unit);
  b.top = top_methods(profile, 10, true);
  if (lock && !run.park_note.empty()) b.notes.push_back("parking not sampled: " + run.park_note);
  if (!lock && run.options.live) {
    b.notes.push_back("live: " + std::to_string(f.freed) +
                      " samples of objects freed before the profile was written left out");
  }
  return b;
}

// "cpu every 10 ms", "cpu every 10 ms, alloc every 512 KiB, lock waits of 10 us or more".
std::string Profiler::sampling_text(const Options& options) {
  std::string out;
  for (const EventSpec* e : options.events) {
    if (!out.empty()) out += ", ";
    out += std::string(e->name) + (e->engine == EngineKind::kLock ? " waits of " : " every ") +
           describe_interval(*e, options.interval_of(*e)) + (e->engine == EngineKind::kLock ? " or more" : "");
  }
  return out;
}

// Each event's samples, in the order of the run's events.
std::vector<int64_t> Profiler::sample_counts(const std::vector<const Profile*>& profiles) {
  std::vector<int64_t> out;
  for (const Profile* p : profiles) out.push_back(p->total_samples());
  return out;
}

std::vector<const Profile*> Profiler::profile_list(const std::vector<std::unique_ptr<Profile>>& profiles) {
  std::vector<const Profile*> out;
  for (const auto& p : profiles) out.push_back(p.get());
  return out;
}

}  // namespace jvmkit::prof
