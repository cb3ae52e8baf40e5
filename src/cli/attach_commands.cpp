// The commands that reach a running JVM. Each is one or two loads of the agent through HotSpot's
// attach mechanism, with the action, reply= and the options in the agent's option list; the agent
// answers with Agent_OnAttach's number and the text it writes to the reply file.
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "base/clock.hpp"
#include "cli/agent_files.hpp"
#include "cli/commands.hpp"
#include "cli/local_output.hpp"
#include "cli/usage.hpp"
#include "hotspot/attach.hpp"
#include "profiler/event_spec.hpp"
#include "profiler/outputs/writers.hpp"
#include "profiler/run/answer_code.hpp"

namespace jvmkit::cli {

namespace {

// The attach listener's answer can wait for a stop that writes a large profile.
constexpr int kAttachTimeoutMs = 60'000;
// HotSpot takes each argument of an attach command in at most 1024 bytes, its NUL included.
constexpr size_t kAttachArgumentMax = 1024;

// The JVM, and where it finds the agent and the files it writes for us.
struct Target {
  hotspot::AttachTarget attach;
  TargetTmp tmp;
  bool shares_fs = true;  // its file system is ours (same mount namespace and root)
  bool copies = false;    // another file system or another user: files go through its /tmp
  std::string agent;      // the agent's path as the JVM sees it
  std::string cwd;        // ours
};

Error open_target(pid_t pid, const std::string& agent, Target* t) {
  if (Error e = hotspot::find_attach_target(pid, &t->attach)) return e;
  t->shares_fs = shares_file_system(pid);
  t->copies = !t->shares_fs || t->attach.uid != geteuid();
  t->cwd = current_directory();
  if (Error e = TargetTmp::open(t->attach.root, &t->tmp)) return e;
  if (!t->copies) {
    t->agent = agent;
    return Error::ok();
  }
  return t->tmp.place_agent(agent, t->attach.uid, t->attach.gid, tool_version(), &t->agent);
}

// A path the JVM keeps and writes itself (start's -o, a file name pattern): a relative one is
// made absolute against our working directory when the JVM shares our file system; otherwise it
// stays relative to the JVM's own working directory.
std::string jvm_kept_path(const Target& t, const std::string& path) {
  return t.shares_fs ? absolute_path(path, t.cwd) : path;
}

struct Answer {
  int code = 0;
  std::string text;
};

// One command for the agent: ACTION, reply=, then OPTIONS.
Error send(const Target& t, const char* action, const std::vector<AgentOption>& options, Answer* answer) {
  const std::string reply = t.tmp.new_name("reply", "");
  std::vector<AgentOption> all{{action, ""}, {"reply", "/tmp/" + reply}};
  all.insert(all.end(), options.begin(), options.end());
  const std::string list = join_options(all);
  if (list.size() >= kAttachArgumentMax || t.agent.size() >= kAttachArgumentMax) {
    return Error("the agent's path or options are longer than HotSpot's attach mechanism takes (" +
                 std::to_string(kAttachArgumentMax) + " bytes): use a shorter output path");
  }
  std::string output;
  Error e = hotspot::attach_load_agent(t.attach, t.agent, list, kAttachTimeoutMs, &answer->code, &output);
  t.tmp.take_text(reply, &answer->text);  // also after a failure: leave nothing behind
  return e;
}

// Prints the agent's answer (status on stdout, the rest on stderr); 0, or 1 when it refused.
int report(const Answer& a, const char* action, bool to_stdout) {
  std::fputs(a.text.c_str(), to_stdout ? stdout : stderr);
  std::fflush(stdout);
  if (a.code == 0) return 0;
  std::fprintf(stderr, "jvmkit: %s failed: %s (agent result %d)\n", action, prof::answer_code_meaning(a.code), a.code);
  return 1;
}

int fail(const Error& e) {
  std::string message = e.message();  // may end with the JVM's own output, and its line breaks
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  std::fprintf(stderr, "jvmkit: %s\n", message.c_str());
  return 1;
}

// Where a profile that stop, dump or profile write goes.
struct Output {
  std::string for_agent;  // file= for the agent
  std::string tmp_name;   // not empty: the JVM writes /tmp/<tmp_name>, which we move to final_path
  std::string final_path;
  bool in_jvm_fs = false;  // final_path is a path in the JVM's file system (a pattern)
};

Output plan_output(const Target& t, const CommandLine& cl) {
  const std::string wanted = output_or_default(cl);
  Output out;
  if (is_file_pattern(wanted)) {
    out.for_agent = out.final_path = jvm_kept_path(t, wanted);
    out.in_jvm_fs = true;
    return out;
  }
  out.final_path = absolute_path(wanted, t.cwd);
  if (!t.copies) {
    out.for_agent = out.final_path;
    return out;
  }
  // The format is always passed: the extension only helps a human who finds the file.
  const std::string format = output_format(cl);
  const std::string extension = format == "html" ? ".html" : format == "pprof" ? ".pb.gz" : ".collapsed";
  out.tmp_name = t.tmp.new_name("out", extension);
  out.for_agent = "/tmp/" + out.tmp_name;
  return out;
}

// The clock of file times, read before a command that makes the JVM write: a file of ours older
// than that (less a slack for file systems that keep coarse times) is an earlier run's.
int64_t file_clock_ns() { return clock_ns(CLOCK_REALTIME_COARSE) - 2'000'000'000; }

// One file the agent wrote, and where the user gets it.
struct DeliveredFile {
  std::string from;  // its name in the JVM's /tmp when the target copies, else its path
  std::string to;
};

// What the agent wrote for OUT since SINCE_NS (file_clock_ns): OUT's file, or the files of a
// collapsed profile of several events, one per event ("out.cpu.collapsed", ...). Empty: none.
std::vector<DeliveredFile> files_written(const Target& t, const Output& out, int64_t since_ns) {
  auto there = [&](const std::string& from) {
    if (!out.tmp_name.empty()) return t.tmp.has_file(from);  // a fresh name: no earlier run's file
    struct stat st {};
    return stat(from.c_str(), &st) == 0 &&
           static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec >= since_ns;
  };
  const std::string& base = out.tmp_name.empty() ? out.final_path : out.tmp_name;
  if (there(base)) return {{base, out.final_path}};
  std::vector<DeliveredFile> files;
  for (const prof::EventSpec& event : prof::all_events()) {
    const std::string from = prof::event_file_name(base, event.name);
    if (there(from)) files.push_back({from, prof::event_file_name(out.final_path, event.name)});
  }
  return files;
}

// After the agent wrote OUT (since SINCE_NS): moves its files where the user wants them and says
// where they are. 1 when there is none.
int deliver(const Target& t, const Output& out, const char* what, int64_t since_ns) {
  if (out.in_jvm_fs) {
    std::fprintf(stderr, "jvmkit: %s written to %s (in the JVM's file system)\n", what, out.final_path.c_str());
    return 0;
  }
  const std::vector<DeliveredFile> files = files_written(t, out, since_ns);
  if (files.empty()) {
    std::fprintf(stderr, "jvmkit: the JVM wrote no profile to %s\n", out.final_path.c_str());
    return 1;
  }
  for (const DeliveredFile& file : files) {
    if (!out.tmp_name.empty()) {
      if (Error e = t.tmp.move_out(file.from, file.to)) return fail(e);
    }
    std::fprintf(stderr, "jvmkit: %s written to %s\n", what, file.to.c_str());
  }
  return 0;
}

bool process_gone(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(stat_file, stat);
  const size_t paren = stat.rfind(')');
  return !stat_file || (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z');
}

enum class WaitEnd { kElapsed, kInterrupted, kTargetExited };

// Waits NS, or until one of SIGNALS (blocked) arrives, or the JVM exits.
WaitEnd wait_for(int64_t ns, pid_t pid, const sigset_t& signals) {
  const int64_t deadline = monotonic_ns() + ns;
  for (;;) {
    const int64_t left = deadline - monotonic_ns();
    if (left <= 0) return WaitEnd::kElapsed;
    const int64_t slice = left < 250'000'000 ? left : 250'000'000;
    const timespec ts{static_cast<time_t>(slice / 1'000'000'000), static_cast<long>(slice % 1'000'000'000)};
    if (sigtimedwait(&signals, nullptr, &ts) > 0) return WaitEnd::kInterrupted;
    if (process_gone(pid)) return WaitEnd::kTargetExited;
  }
}

std::string seconds_text(int64_t ns) {
  if (ns % 1'000'000'000 == 0) return std::to_string(ns / 1'000'000'000) + " s";
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f s", static_cast<double>(ns) / 1e9);
  return text;
}

void say_continuous(pid_t pid, const std::string& pattern) {
  std::fprintf(stderr,
               "jvmkit: continuous profiling of pid %d, window files %s (in the JVM's file system); jvmkit stop %d "
               "ends it\n",
               pid, pattern.c_str(), pid);
}

// The JVM exited while `profile` waited: the agent wrote the profile at its exit, to the file
// given at start (since SINCE_NS). Returns the exit status.
int target_exited(const Target& t, const Output& out, int64_t since_ns) {
  std::fprintf(stderr, "jvmkit: the JVM (pid %d) exited while it was being profiled\n", t.attach.pid);
  if (out.in_jvm_fs) return 1;
  // Our descriptor of its /tmp still reaches a file there, even when that /tmp was the JVM's own.
  return deliver(t, out, "profile (at the JVM's exit)", since_ns);
}

int profile(const CommandLine& cl, const std::string& agent) {
  // Ctrl-C and SIGTERM end the wait, not the tool: blocked from here on, taken by sigtimedwait.
  // One that comes during start is taken by the wait at once, so the profile is still stopped.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigprocmask(SIG_BLOCK, &signals, nullptr);

  Target t;
  if (Error e = open_target(cl.pid, agent, &t)) return fail(e);
  Output out;
  if (cl.loop()) {
    // The windows are written by the JVM, to the pattern, in its file system.
    if (!cl.output.empty()) out.for_agent = out.final_path = jvm_kept_path(t, cl.output);
    out.in_jvm_fs = true;
  } else {
    out = plan_output(t, cl);
    // A file this tool writes, or a JVM of this user in this file system: checked here, before
    // the start (the agent checks what it writes itself).
    if (!out.in_jvm_fs) {
      if (Error e = check_local_output(cl, out.final_path)) return fail(e);
    }
  }
  const int64_t started_ns = file_clock_ns();
  Answer answer;
  if (Error e = send(t, "start", start_options(cl, out.for_agent), &answer)) return fail(e);
  if (int status = report(answer, "start", false)) return status;
  if (cl.loop() && cl.duration_ns == 0) {
    say_continuous(cl.pid, out.final_path);
    return 0;
  }
  std::fprintf(stderr, "jvmkit: profiling pid %d for %s (Ctrl-C stops earlier)\n", cl.pid,
               seconds_text(cl.duration_ns).c_str());
  const WaitEnd end = wait_for(cl.duration_ns, cl.pid, signals);
  if (end == WaitEnd::kTargetExited) return target_exited(t, out, started_ns);
  std::vector<AgentOption> stop_options;
  if (!cl.loop()) stop_options = {{"file", out.for_agent}, {"format", output_format(cl)}};
  if (Error e = send(t, "stop", stop_options, &answer)) return fail(e);
  if (int status = report(answer, "stop", false)) {
    if (!out.tmp_name.empty()) t.tmp.remove(out.tmp_name);
    return status;
  }
  return deliver(t, out, cl.loop() ? "window files" : "profile", started_ns);
}

// The file start gives the agent: -o, a path the JVM keeps and writes itself (at stop and dump
// without -o, and at its exit). Without -o, profile.html in our working directory for a JVM of our
// user in our file system; else the agent's default (in the JVM's working directory).
std::string start_file(const Target& t, const CommandLine& cl) {
  if (!cl.output.empty()) return jvm_kept_path(t, cl.output);
  return t.copies ? "" : absolute_path(std::string(kDefaultOutput), t.cwd);
}

int start(const CommandLine& cl, const std::string& agent) {
  Target t;
  if (Error e = open_target(cl.pid, agent, &t)) return fail(e);
  const std::string file = start_file(t, cl);
  Answer answer;
  if (Error e = send(t, "start", start_options(cl, file), &answer)) return fail(e);
  if (int status = report(answer, "start", false)) return status;
  if (cl.loop()) {
    say_continuous(cl.pid, file);
  } else {
    const std::string where = file.empty()
                                  ? "jvmkit-profile-" + std::to_string(cl.pid) + ".* in the JVM's working directory"
                                  : file + (t.copies ? " (in the JVM's file system)" : "");
    std::fprintf(stderr, "jvmkit: profiling pid %d; jvmkit dump %d or jvmkit stop %d writes the profile to %s\n",
                 cl.pid, cl.pid, cl.pid, where.c_str());
  }
  return 0;
}

// stop and dump without -o: the agent writes the file start was given, in the JVM's file system, as
// the JVM's user; its answer names the files (and a fallback, when that failed).
int write_start_file(const Target& t, const CommandLine& cl, const char* action) {
  std::vector<AgentOption> options;
  if (cl.has("format")) options.push_back({"format", cl.value("format")});
  Answer answer;
  if (Error e = send(t, action, options, &answer)) return fail(e);
  return report(answer, action, false);
}

// stop and dump: the agent writes the profile, we deliver it.
int write_profile(const CommandLine& cl, const std::string& agent, const char* action) {
  Target t;
  if (Error e = open_target(cl.pid, agent, &t)) return fail(e);
  if (cl.output.empty()) return write_start_file(t, cl, action);
  const Output out = plan_output(t, cl);
  // Refused before the command: the run goes on, and nothing is lost.
  if (!out.in_jvm_fs) {
    if (Error e = check_local_output(cl, out.final_path)) return fail(e);
  }
  const int64_t sent_ns = file_clock_ns();
  Answer answer;
  Error e = send(t, action, {{"file", out.for_agent}, {"format", output_format(cl)}}, &answer);
  if (e || answer.code != 0) {
    if (!out.tmp_name.empty()) t.tmp.remove(out.tmp_name);
    return e ? fail(e) : report(answer, action, false);
  }
  report(answer, action, false);
  return deliver(t, out, "profile", sent_ns);
}

int status(const CommandLine& cl, const std::string& agent) {
  Target t;
  if (Error e = open_target(cl.pid, agent, &t)) return fail(e);
  Answer answer;
  if (Error e = send(t, "status", {}, &answer)) return fail(e);
  return report(answer, "status", true);
}

}  // namespace

int run_attach(const CommandLine& cl, const std::string& agent) {
  switch (cl.command) {
    case Command::kProfile:
      return profile(cl, agent);
    case Command::kStart:
      return start(cl, agent);
    case Command::kStop:
      return write_profile(cl, agent, "stop");
    case Command::kDump:
      return write_profile(cl, agent, "dump");
    case Command::kStatus:
      return status(cl, agent);
    default:
      return 2;
  }
}

}  // namespace jvmkit::cli
