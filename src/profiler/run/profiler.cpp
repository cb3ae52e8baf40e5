#include "profiler/run/profiler.hpp"

#include <jvmkit/stack_walk.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "base/clock.hpp"
#include "hotspot/vm_flags.hpp"
#include "profiler/engines/native_samples.hpp"
#include "profiler/engines/signal_sampler.hpp"
#include "profiler/engines/trace_callbacks.hpp"
#include "profiler/events/alloc_sampler.hpp"
#include "profiler/events/event_samples.hpp"
#include "profiler/events/lock_sampler.hpp"
#include "profiler/outputs/output_check.hpp"
#include "profiler/outputs/output_fallback.hpp"
#include "profiler/outputs/writers.hpp"
#include "profiler/run/run.hpp"
#include "profiler/run/run_output.hpp"
#include "profiler/run/run_report.hpp"
#include "profiler/thread_list.hpp"

namespace jvmkit::prof {
namespace {

// The stack walker's delivery thread, by the 15 bytes of its name the kernel keeps, and (with
// cstack=native) its table watcher, "jvmkit native", and the engines' thread lister, "jvmkit lister".
bool is_walker_comm(const std::string& comm) {
  return comm == std::string_view(JVMKIT_WALK_THREAD_NAME).substr(0, 15) || comm == "jvmkit native" ||
         comm == "jvmkit lister";
}

// The process' threads, less the stack walker's (they run no Java code, nor code of the program).
std::vector<pid_t> threads_to_sample() {
  std::vector<pid_t> out;
  for (pid_t tid : list_process_threads()) {
    if (!is_walker_comm(thread_os_name(tid))) out.push_back(tid);
  }
  return out;
}

std::string seconds_text(int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f", static_cast<double>(ns) / 1e9);
  return text;
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

}  // namespace

Profiler::Profiler(JavaVM* vm, jvmtiEnv* jvmti) : vm_(vm), jvmti_(jvmti) {}

Error Profiler::install_handler(int signal) {
  if (installed_signals_.count(signal) != 0) return Error::ok();
  const jvmtiStackTraceCallbacks callbacks = java_trace_callbacks();
  if (Error e =
          install_sampling_handler(signal, jvmti_, callbacks, native_trace_callbacks(), native_frame_callback())) {
    return e;
  }
  installed_signals_.insert(signal);
  return Error::ok();
}

// Enables the stack-walk library for RUN (in the live phase), timed: with cstack=native, Enable
// first builds the unwind tables of every loaded object.
Error Profiler::enable_walker(Run& run) {
  run.native_prepare_base_ns = run.options.cstack == CStack::kNative ? native_prepare_ns() : 0;
  const int64_t start = jvmkit::monotonic_ns();
  if (jvmtiError err = EnableRequestStackTrace(jvmti_); err != JVMTI_ERROR_NONE) {
    return Error("EnableRequestStackTrace failed (JVMTI error " + std::to_string(static_cast<int>(err)) + ")");
  }
  run.enable_ns = jvmkit::monotonic_ns() - start;
  run.enabled = true;
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
  if (Error e = choose_native_frames(&run->options, &native_frames_set_, &run->native_off_note)) return e;
  const bool native = run->options.cstack == CStack::kNative;
  run->recording = std::make_unique<Recording>(vm_, jvmti_, run->options, run->start_wall_ns, run->start_mono_ns);
  set_current_recording(run->recording.get());
  if (live) {
    // Code compiled before this attach lacks the debug records that place a sample between
    // safepoints (HotSpot records them when -XX:+DebugNonSafepoints is given or, by default, while
    // an agent watches compilations, as the stack-walk library does from now on).
    const std::optional<bool> exact = hotspot::bool_flag("DebugNonSafepoints");
    run->coarse_code_before = exact.has_value() && !*exact;
    if (Error e = enable_walker(*run)) {
      set_current_recording(nullptr);
      return e;
    }
  }
  if (options.event != nullptr) {
    // With native frames HotSpot's own threads have traces too: wall also signals those started
    // later, which no ThreadStart reports.
    // Native frames also take the kernel's part of a perf event's samples.
    auto engine = make_engine(EngineConfig{options.event, options.interval, options.signal, native, native});
    // Wall sampling signals every thread; threads that run no Java code (refused as non-Java by
    // the library, or failing again and again without one delivered trace) are left out.
    Recording* recording = run->recording.get();
    engine->set_skip_filter(
        [recording](pid_t tid) { return is_known_non_java_thread(tid) || recording->runs_no_java(tid); });
    if (Error e = engine->start(live ? threads_to_sample() : list_process_threads())) {
      if (run->enabled) DisableRequestStackTrace(jvmti_);
      set_current_recording(nullptr);
      return e;
    }
    run->engine = std::move(engine);
  }
  run->base = process_counts();
  run->kernel_base = read_kernel_chain_counts();
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
    if (Error e = enable_walker(run)) return e;
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
  bool kernel_chains = false;
  {
    std::shared_lock<std::shared_mutex> lock(engine_mutex_);
    kernel_chains = run.engine && run.engine->kernel_chains().active;
  }
  set_native_requests(run.options.cstack == CStack::kNative, kernel_chains);
  start_jfr_output(run);
  set_sampling_active(true);
  if (run.options.loop_ns > 0 || run.jfr) {
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
  if (run.enabled && run.options.cstack == CStack::kNative) {
    add_native_table_figures(run.native_prepare_base_ns, &run.native_tables);  // Disable drops the tables
  }
  if (run.enabled) DisableRequestStackTrace(jvmti_);
  run.enabled = false;
  set_current_recording(nullptr);
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
// run's file (the one start was given), in its own format when it names one. Annotations (ann)
// asked for at start stay: the launcher's stop and dump name the file, not the run's other options.
Options Profiler::output_options(const Options& given) const {
  Options out = run_->options;
  if (given.file_given) {
    out.file = given.file;
    out.format = given.format;
    out.annotate = given.annotate || run_->options.annotate;
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
  const bool to_run_file = !given.file_given;
  if (run.options.loop_ns > 0 && to_run_file) {
    written = write_run_window(run, last, true);
    line = written.error
               ? output_result_lines(written, output.format, sample_counts(profiles))
               : "wrote " + std::to_string(run.windows.total_written() / run.files_per_window) + " windows to " +
                     run.options.file +
                     " (last: " + (written.files.empty() ? std::string("none") : written.files.back().path) + ")";
    add_window_errors(run, &written, &line);
  } else if (run.jfr && (to_run_file || writes_run_recording(run, output))) {
    written = finish_jfr_output(run, last, true);
    line = output_result_lines(written, OutputFormat::kJfr, {});
  } else {
    if (const std::string refusal = jfr_output_refusal(run, output); !refusal.empty()) {
      written.error = Error(refusal);
      line = "ERROR: " + refusal;
    } else {
      written = write_run_output(run, output, profiles, last.start_wall_ns, last.duration_ns);
      line = output_result_lines(written, output.format, sample_counts(profiles));
    }
    if (run.jfr) {  // the run's own recording ends too
      const OutputResult recording = finish_jfr_output(run, last, true);
      line += "\n" + output_result_lines(recording, OutputFormat::kJfr, {});
      if (recording.error && !written.error) written.error = recording.error;  // its file misses chunks
    }
  }
  std::string text = run_report(run, line, profiles);
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
  if (run_->jfr && (!given.file_given || writes_run_recording(*run_, output))) {
    written = flush_jfr_output(*run_);
    line = output_result_lines(written, OutputFormat::kJfr, {});
  } else if (const std::string refusal = jfr_output_refusal(*run_, output); !refusal.empty()) {
    written.error = Error(refusal);
    line = "ERROR: " + refusal;
  } else {
    run_->recording->with_current_window([&](const std::vector<const Profile*>& profiles, int64_t start_wall_ns) {
      const int64_t duration = jvmkit::clock_ns(CLOCK_REALTIME) - start_wall_ns;
      written = write_run_output(*run_, output, profiles, start_wall_ns, duration);
      line = output_result_lines(written, output.format, sample_counts(profiles));
    });
  }
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

}  // namespace jvmkit::prof
