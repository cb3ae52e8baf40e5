// The jvmkit tool's command line: what the user asked for, read from argv without side effects,
// and the agent option lists that request turns into (docs/profiler/cli.md, "The jvmkit tool").
//
// A mistake on the command line (an unknown option, a missing pid, a bad duration) is an Error
// whose message names the option; the tool prints it and exits with status 2.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace jvmkit::cli {

enum class Command {
  kUsage,    // no command at all: the usage on stderr, status 2
  kHelp,     // --help, -h, help, or -h after a command
  kVersion,  // --version
  kLaunch,   // profile [options] -- java ...
  kProfile,  // profile [options] [-d DURATION] PID
  kStart,
  kStop,
  kDump,
  kStatus,
};

// One agent option as the agent spells it: "event", "cpu"; a bare flag has an empty value.
struct AgentOption {
  std::string key;
  std::string value;
  bool operator==(const AgentOption&) const = default;
};

struct CommandLine {
  Command command = Command::kUsage;
  pid_t pid = 0;                          // the attach commands' target
  std::vector<std::string> java_command;  // kLaunch: the command after --
  std::string output;                     // -o as given ("" when not given)
  std::string format;                     // -f as given ("" when not given)
  int64_t duration_ns = 0;                // -d (0 when not given)
  // The other agent options given by flags (event, interval, threads, ..., loop with a unit),
  // in the order of the tool's flag table; a flag given twice counts once, with its last value.
  std::vector<AgentOption> options;

  bool has(std::string_view key) const;
  std::string value(std::string_view key) const;  // "" when not given
  bool loop() const { return has("loop"); }
};

// The default output file of profile, stop and dump.
constexpr std::string_view kDefaultOutput = "profile.html";
// How long `jvmkit profile PID` profiles without -d (as async-profiler's asprof).
constexpr int64_t kDefaultDurationNs = 60'000'000'000;

// Parses ARGS (argv without the program name).
Error parse_command_line(std::span<const std::string> args, CommandLine* out);

// A duration on the command line (-d, --loop): a bare number is seconds; else as the agent reads
// durations (10s, 500ms, ...). Positive.
Error parse_cli_duration(std::string_view text, int64_t* ns);

// -o, or the default output file.
std::string output_or_default(const CommandLine& cl);

// The format= the tool passes when attaching: -f, else the one the output's extension implies
// (.html/.htm html, .pb.gz/.pprof/.pb pprof, anything else collapsed).
std::string output_format(const CommandLine& cl);

// Whether PATH is a file name pattern the agent expands (%p, %t, %%).
bool is_file_pattern(std::string_view path);

// PATH made absolute against CWD (unchanged when it is absolute already).
std::string absolute_path(const std::string& path, const std::string& cwd);

// "key=value,flag,...".
std::string join_options(const std::vector<AgentOption>& options);

// Launch mode: the agent's options after -agentpath:...=, "file=<output, absolute>" first, then
// every option given (format only when -f was given: the agent takes it from the extension).
std::string launch_options(const CommandLine& cl, const std::string& cwd);

// Launch mode: the command to exec and the JAVA_TOOL_OPTIONS to set ("" to leave it alone). The
// agent goes right after the command's first word when that is a `java` binary; otherwise (a
// wrapper script, say) through JAVA_TOOL_OPTIONS, in front of what it held (OLD_TOOL_OPTIONS).
void launch_command(const CommandLine& cl, const std::string& agent, const std::string& cwd,
                    const char* old_tool_options, std::vector<std::string>* argv, std::string* tool_options);

// The options of `start` (and of profile's start) besides the action and reply=: file= (FILE, when
// not empty), format= (always), then every option given.
std::vector<AgentOption> start_options(const CommandLine& cl, const std::string& file);

}  // namespace jvmkit::cli
