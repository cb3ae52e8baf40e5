// src/profiler/run/: the controller, which wires the other rooms. The agent's entry points
// (agent.cpp: Agent_OnLoad, Agent_OnAttach and the JVMTI events; java_api.cpp: the natives of
// org.jvmkit.Profiler) hand their commands to run_command (agent_command.hpp), which this class
// carries out: a run (run.hpp) starts an engine (engines/) and the JVM events (events/), feeds a
// Recording (recording/), writes its output through outputs/ (run_output.hpp), window by window in
// continuous mode (window_thread.cpp), and prints the end-of-run report (run_report.hpp,
// walk_counts.hpp). answer_code.hpp is the agent's contract with the jvmkit tool. The top floor: no
// other room includes run/.
//
// Profiler: the agent's controller. It owns at most one run (start to stop) at a time and carries
// out the agent's commands, from wherever they come:
//   -agentpath at JVM start   prepare() in Agent_OnLoad, the run starts at vm_init()
//   Agent_OnAttach            execute(): start, stop, dump or status (the `jvmkit` tool)
//   org.jvmkit.Profiler       execute(), the same commands from Java (java_api.cpp)
//   VMDeath                   vm_death(): a run still going is stopped and written
// A run enables the stack-walk library and starts an engine; stopping it disables both, so that
// between runs the profiler costs nothing: no signals, no timers, no thread of its own.
#pragma once

#include <jvmti.h>
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>

#include "base/error.hpp"
#include "profiler/options.hpp"
#include "profiler/recording/recording.hpp"
#include "profiler/run/answer_code.hpp"

namespace jvmkit::prof {

struct Run;  // run.hpp

struct Answer {
  AnswerCode code = AnswerCode::kOk;
  std::string text;  // what happened, for a person: one or more lines
};

class Profiler {
 public:
  Profiler(JavaVM* vm, jvmtiEnv* jvmti);
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  // Agent_OnLoad: the run that starts at VMInit. Its engine starts now, so that an event that
  // cannot be sampled stops the JVM at start with a message.
  Error prepare(const Options& options);
  // VMInit: the prepared run starts (the stack-walk library wants the live phase).
  void vm_init();
  // A command from Agent_OnAttach.
  Answer execute(const Options& options);
  // VMDeath (or Agent_OnUnload without VMDeath): stops a running run, writes its output and prints
  // the report on stderr.
  void vm_death();

  void thread_started(pid_t tid);
  void thread_ended(pid_t tid);

 private:
  Answer start(const Options& options);
  Answer stop(const Options& given);
  Answer dump(const Options& given);
  Answer status() const;

  Error begin_run(const Options& options, bool live);
  Error activate_run();
  Error start_jvm_events();
  void apply_freed_objects();
  void stop_jvm_events();
  void end_sampling();
  Error install_handler(int signal);
  Error enable_walker(Run& run);
  void loop_main();
  void end_window();
  Options output_options(const Options& given) const;
  static std::string sampling_text(const Options& options);
  void drop_run();
  std::string not_running_text() const;

  JavaVM* vm_;
  jvmtiEnv* jvmti_;
  std::mutex control_mutex_;        // one command at a time
  std::unique_ptr<Run> run_;        // guarded by control_mutex_; the engine also by engine_mutex_
  std::shared_mutex engine_mutex_;  // thread events (shared) against engine changes
  std::set<int> installed_signals_;
  bool native_frames_set_ = false;  // the stack-walk library was last set to prepare native frames
  std::string last_run_;            // status when not running: what the last run was
  bool dead_ = false;

  // Continuous mode and JFR output: the window thread, woken early to stop.
  std::mutex loop_mutex_;
  std::condition_variable loop_wake_;
  bool loop_stop_ = false;
  std::thread loop_thread_;
};

}  // namespace jvmkit::prof
