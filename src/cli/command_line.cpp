#include "cli/command_line.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>

#include "profiler/options.hpp"

namespace jvmkit::cli {

namespace {

// The commands, as bits of a set: which flags each accepts.
enum CommandBit : unsigned {
  kProfileBit = 1,
  kStartBit = 2,
  kStopBit = 4,
  kDumpBit = 8,
  kStatusBit = 16,
};
constexpr unsigned kStarting = kProfileBit | kStartBit;  // the commands that start a profile
constexpr unsigned kWriting = kStopBit | kDumpBit;       // the commands that write one
constexpr unsigned kEvery = kStarting | kWriting | kStatusBit;

struct CommandWord {
  std::string_view word;
  CommandBit bit;
  Command command;
};
constexpr CommandWord kCommands[] = {
    {"profile", kProfileBit, Command::kProfile}, {"start", kStartBit, Command::kStart},
    {"stop", kStopBit, Command::kStop},          {"dump", kDumpBit, Command::kDump},
    {"status", kStatusBit, Command::kStatus},
};

// One flag of the tool. Each agent option with launcher flags in the agent's option catalogue
// (src/profiler/options.cpp) has its row here; the catalogue test (tests/profiler) checks that
// every one of them reaches the agent, and that the usage (usage.txt) lists the same flags.
struct Flag {
  char short_name;             // 'e' for -e; 0 when there is none
  std::string_view long_name;  // "event" for --event
  std::string_view key;        // the agent option it sets; "" for the tool's own flags
  bool takes_value;
  unsigned commands;             // the commands that accept it
  bool inline_optional = false;  // takes no value, or one written into the same argument (--threads=carrier)
};
constexpr Flag kFlags[] = {
    {'e', "event", "event", true, kStarting},
    {'i', "interval", "interval", true, kStarting},
    {'o', "output", "file", true, kStarting | kWriting},
    {'f', "format", "format", true, kStarting | kWriting},
    {'t', "threads", "threads", false, kStarting, true},
    {'a', "annotate", "ann", false, kStarting},
    {'s', "signal", "signal", true, kStarting},
    {0, "loop", "loop", true, kStarting},
    {0, "keep", "keep", true, kStarting},
    {0, "chunktime", "chunktime", true, kStarting},
    {0, "depth", "depth", true, kStarting},
    {0, "max-stacks", "max_stacks", true, kStarting},
    {0, "alloc", "alloc", true, kStarting},
    {0, "lock", "lock", true, kStarting},
    {0, "live", "live", false, kStarting},
    {0, "labels", "labels", false, kStarting},
    {0, "cstack", "cstack", true, kStarting},
    {'d', "duration", "", true, kProfileBit},
    {'h', "help", "", false, kEvery},
};
constexpr size_t kFlagCount = std::size(kFlags);

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "-e" or "--event" or "--event=cpu": the flag, and the value written into the same argument.
const Flag* find_flag(const std::string& arg, std::optional<std::string>* inline_value) {
  if (arg.rfind("--", 0) == 0) {
    const size_t eq = arg.find('=');
    const std::string_view name = std::string_view(arg).substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    if (eq != std::string::npos) *inline_value = arg.substr(eq + 1);
    for (const Flag& f : kFlags) {
      if (f.long_name == name) return &f;
    }
    return nullptr;
  }
  if (arg.size() != 2) return nullptr;
  for (const Flag& f : kFlags) {
    if (f.short_name != 0 && f.short_name == arg[1]) return &f;
  }
  return nullptr;
}

std::string long_form(const Flag& f) { return "--" + std::string(f.long_name); }

bool parse_pid(const std::string& text, pid_t* pid) {
  if (!all_digits(text)) return false;
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0) return false;
  *pid = static_cast<pid_t>(value);
  return true;
}

// What the loop over the arguments collects: each flag's last value (and how it was spelled).
struct Given {
  std::array<std::optional<std::string>, kFlagCount> values;
  std::array<std::string, kFlagCount> spelled;
};

// Checks the values and fills OUT from GIVEN.
Error take_values(const Given& given, CommandLine* out) {
  for (size_t i = 0; i < kFlagCount; i++) {
    const Flag& f = kFlags[i];
    if (!given.values[i]) continue;
    std::string value = *given.values[i];
    // -e cpu,alloc,lock: an event= option per event (the agent takes several).
    if (f.key == "event") {
      for (size_t start = 0; start <= value.size();) {
        size_t end = value.find(',', start);
        if (end == std::string::npos) end = value.size();
        const std::string name = value.substr(start, end - start);
        // Checked here: the agent would take a name that is one of its options as that option.
        if (prof::find_event(name) == nullptr) {
          return Error(given.spelled[i] + " " + value + ": unknown event '" + name +
                       "' (known: " + prof::event_names() + ")");
        }
        out->options.push_back({"event", name});
        start = end + 1;
      }
      continue;
    }
    // The agent's options are one comma-separated list: a value cannot hold a comma.
    if (value.find(',') != std::string::npos) {
      if (f.key == "file") {
        return Error("--output " + value +
                     ": the file name must not contain a comma (agent options are comma-separated)");
      }
      return Error(long_form(f) + " " + value +
                   ": the value must not contain a comma (agent options are comma-separated)");
    }
    if (f.long_name == "duration" || f.long_name == "loop") {
      int64_t ns = 0;
      if (Error e = parse_cli_duration(value, &ns)) {
        return Error(given.spelled[i] + " " + value + ": bad duration: " + e.message() +
                     " (e.g. 30s, 500ms, or seconds as a bare number)");
      }
      if (f.long_name == "duration") out->duration_ns = ns;
      if (all_digits(value)) value += "s";  // the agent reads a bare number as ns
    }
    if (f.key == "file") {
      out->output = value;
    } else if (!f.key.empty()) {
      out->options.push_back({std::string(f.key), f.takes_value || f.inline_optional ? value : std::string()});
    }
  }
  return Error::ok();
}

Error parse_arguments(const CommandWord& cmd, std::span<const std::string> args, CommandLine* out) {
  const std::string word(cmd.word);
  Given given;
  bool dash_dash = false;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& arg = args[i];
    if (arg == "--") {
      if (cmd.bit != kProfileBit) return Error(word + ": only jvmkit profile runs a java command (after --)");
      out->java_command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      dash_dash = true;
      break;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      std::optional<std::string> inline_value;
      const Flag* flag = find_flag(arg, &inline_value);
      if (flag == nullptr) {
        if (cmd.bit == kProfileBit) {
          return Error("profile: unknown option '" + arg + "' (the java command goes after --; see jvmkit --help)");
        }
        return Error(word + ": unknown option '" + arg + "' (see jvmkit --help)");
      }
      if ((flag->commands & cmd.bit) == 0) {
        return Error(word + ": " + arg + " is not an option of this command (see jvmkit --help)");
      }
      if (flag->long_name == "help") {
        out->command = Command::kHelp;
        return Error::ok();
      }
      std::string value;
      if (flag->takes_value) {
        if (inline_value) {
          value = *inline_value;
        } else if (i + 1 < args.size()) {
          value = args[++i];
        }
        if (value.empty()) return Error(arg + " needs a value");
      } else if (inline_value && flag->inline_optional) {
        value = *inline_value;
        if (value.empty()) return Error(arg + " needs a value after =");
      } else if (inline_value) {
        return Error(arg + " takes no value");
      }
      const size_t index = static_cast<size_t>(flag - kFlags);
      given.values[index] = value;
      given.spelled[index] = arg.substr(0, arg.find('='));
      continue;
    }
    pid_t pid = 0;
    if (!parse_pid(arg, &pid)) {
      if (cmd.bit == kProfileBit) {
        return Error("profile: '" + arg +
                     "' is not a pid (the java command goes after --: jvmkit profile [options] -- java ...)");
      }
      return Error(word + ": '" + arg + "' is not a pid");
    }
    if (out->pid != 0) return Error(word + ": more than one pid (" + std::to_string(out->pid) + " and " + arg + ")");
    out->pid = pid;
  }
  if (Error e = take_values(given, out)) return e;

  out->command = cmd.command;
  if (cmd.bit != kProfileBit) {
    if (out->pid == 0) return Error(word + ": missing pid (jvmkit " + word + " [options] PID)");
    return Error::ok();
  }
  if (dash_dash) {
    if (out->pid != 0) return Error("profile: a pid and a java command: give one of them");
    if (out->java_command.empty()) {
      return Error("profile: no command given after -- (e.g. jvmkit profile -- java -jar app.jar)");
    }
    if (out->duration_ns != 0) {
      return Error("-d/--duration: only with a pid (a java command run by jvmkit is profiled until it exits)");
    }
    out->command = Command::kLaunch;
    return Error::ok();
  }
  if (out->pid == 0) {
    return Error(
        "profile: missing pid, or the java command after -- (jvmkit profile [options] PID, or jvmkit profile "
        "[options] -- java -jar app.jar)");
  }
  if (out->duration_ns == 0 && !out->loop()) out->duration_ns = kDefaultDurationNs;
  return Error::ok();
}

}  // namespace

bool CommandLine::has(std::string_view key) const {
  return std::any_of(options.begin(), options.end(), [&](const AgentOption& o) { return o.key == key; });
}

std::string CommandLine::value(std::string_view key) const {
  for (const AgentOption& o : options) {
    if (o.key == key) return o.value;
  }
  return "";
}

Error parse_command_line(std::span<const std::string> args, CommandLine* out) {
  *out = CommandLine();
  if (args.empty()) return Error::ok();  // kUsage
  const std::string& word = args[0];
  if (word == "-h" || word == "--help" || word == "help") {
    out->command = Command::kHelp;
    return Error::ok();
  }
  if (word == "--version") {
    out->command = Command::kVersion;
    return Error::ok();
  }
  for (const CommandWord& c : kCommands) {
    if (c.word == word) return parse_arguments(c, args.subspan(1), out);
  }
  return Error("unknown command '" + word + "' (try jvmkit --help)");
}

Error parse_cli_duration(std::string_view text, int64_t* ns) {
  std::string with_unit(text);
  if (all_digits(text)) with_unit += "s";
  if (Error e = prof::parse_duration(with_unit, ns)) return e;
  if (*ns <= 0) return Error("must be more than 0");
  return Error::ok();
}

std::string output_or_default(const CommandLine& cl) {
  return cl.output.empty() ? std::string(kDefaultOutput) : cl.output;
}

std::string output_format(const CommandLine& cl) {
  if (cl.has("format")) return cl.value("format");
  return prof::format_name(prof::format_from_file(output_or_default(cl)));
}

bool is_file_pattern(std::string_view path) {
  return path.find("%p") != std::string_view::npos || path.find("%t") != std::string_view::npos ||
         path.find("%%") != std::string_view::npos;
}

std::string absolute_path(const std::string& path, const std::string& cwd) {
  if (!path.empty() && path[0] == '/') return path;
  if (!cwd.empty() && cwd.back() == '/') return cwd + path;
  return cwd + "/" + path;
}

std::string join_options(const std::vector<AgentOption>& options) {
  std::string out;
  for (const AgentOption& o : options) {
    if (!out.empty()) out += ',';
    out += o.key;
    if (!o.value.empty()) out += "=" + o.value;
  }
  return out;
}

std::string launch_options(const CommandLine& cl, const std::string& cwd) {
  std::vector<AgentOption> options{{"file", absolute_path(output_or_default(cl), cwd)}};
  options.insert(options.end(), cl.options.begin(), cl.options.end());
  return join_options(options);
}

void launch_command(const CommandLine& cl, const std::string& agent, const std::string& cwd,
                    const char* old_tool_options, std::vector<std::string>* argv, std::string* tool_options) {
  const std::string agent_option = "-agentpath:" + agent + "=" + launch_options(cl, cwd);
  const std::string& java = cl.java_command.at(0);
  const std::string_view name = std::string_view(java).substr(java.rfind('/') + 1);
  argv->clear();
  tool_options->clear();
  if (name == "java") {
    argv->push_back(java);
    argv->push_back(agent_option);
    argv->insert(argv->end(), cl.java_command.begin() + 1, cl.java_command.end());
    return;
  }
  *argv = cl.java_command;
  *tool_options = agent_option;
  if (old_tool_options != nullptr && old_tool_options[0] != '\0') *tool_options += " " + std::string(old_tool_options);
}

std::vector<AgentOption> start_options(const CommandLine& cl, const std::string& file) {
  std::vector<AgentOption> out;
  if (!file.empty()) out.push_back({"file", file});
  out.push_back({"format", output_format(cl)});
  for (const AgentOption& o : cl.options) {
    if (o.key != "format") out.push_back(o);
  }
  return out;
}

}  // namespace jvmkit::cli
