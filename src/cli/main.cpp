// jvmkit: the profiler's command-line tool (bin/jvmkit next to lib/libjvmkit_prof.so). Runs a java
// command with the profiler agent, or loads the agent into a running JVM to profile it; see
// usage.txt (jvmkit --help) and docs/profiler/cli.md, "The jvmkit tool".
// Exit status: 0 done; 1 the JVM or the agent refused or failed; 2 a usage error.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/agent_files.hpp"
#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/usage.hpp"
#include "convert/convert.hpp"

int main(int argc, char** argv) {
  using namespace jvmkit::cli;
  const std::vector<std::string> args(argv + 1, argv + argc);
  // convert and diff work on files, not on a JVM: their own command line, no agent.
  if (!args.empty() && args[0] == "convert") return jvmkit::convert::run_convert({args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "diff") return jvmkit::convert::run_diff({args.begin() + 1, args.end()});
  CommandLine cl;
  if (jvmkit::Error e = parse_command_line(args, &cl)) {
    std::fprintf(stderr, "jvmkit: %s\n", e.message().c_str());
    return 2;
  }
  const std::string_view usage = usage_text();
  switch (cl.command) {
    case Command::kUsage:
      std::fwrite(usage.data(), 1, usage.size(), stderr);
      return 2;
    case Command::kHelp:
      std::fwrite(usage.data(), 1, usage.size(), stdout);
      return 0;
    case Command::kVersion:
      std::printf("jvmkit %.*s\n", static_cast<int>(tool_version().size()), tool_version().data());
      return 0;
    default:
      break;
  }
  std::string agent;
  if (jvmkit::Error e = find_agent(std::getenv("JVMKIT_PROF_AGENT"), self_path(), &agent)) {
    std::fprintf(stderr, "jvmkit: %s\n", e.message().c_str());
    return 2;
  }
  return cl.command == Command::kLaunch ? run_launch(cl, agent) : run_attach(cl, agent);
}
