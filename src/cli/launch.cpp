// Launch mode: the java command with -agentpath (or JAVA_TOOL_OPTIONS for a wrapper), exec'd once
// its output file is known to be writable.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cli/agent_files.hpp"
#include "cli/commands.hpp"
#include "cli/local_output.hpp"

namespace jvmkit::cli {

int run_launch(const CommandLine& cl, const std::string& agent) {
  const std::string cwd = current_directory();
  // The JVM runs as this user in this file system: a profile it could not write is refused now,
  // before the program runs (the agent checks again in the JVM).
  if (Error e = check_local_output(cl, absolute_path(output_or_default(cl), cwd))) {
    std::fprintf(stderr, "jvmkit: %s\n", e.message().c_str());
    return 1;
  }
  std::vector<std::string> argv;
  std::string tool_options;
  launch_command(cl, agent, cwd, std::getenv("JAVA_TOOL_OPTIONS"), &argv, &tool_options);
  if (!tool_options.empty()) setenv("JAVA_TOOL_OPTIONS", tool_options.c_str(), 1);
  std::vector<char*> pointers;
  for (std::string& a : argv) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  execvp(pointers[0], pointers.data());
  const int err = errno;
  std::fprintf(stderr, "jvmkit: cannot run %s: %s\n", argv[0].c_str(), std::strerror(err));
  return err == ENOENT ? 127 : 126;
}

}  // namespace jvmkit::cli
