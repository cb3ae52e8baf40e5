// What the jvmkit tool does for each command, once the command line is read: run a java command
// with the agent (launch mode), or load the agent into a running JVM with a command for it
// (profile PID, start, stop, dump, status; the agent's side is in src/profiler/run/agent.cpp).
// Each returns the tool's exit status: 0 done, 1 the JVM or the agent refused or failed.
#pragma once

#include <string>

#include "cli/command_line.hpp"

namespace jvmkit::cli {

// Launch mode: execs the java command with the agent AGENT. Returns only when the command could
// not be run: 127 (not found) or 126, as shells do.
int run_launch(const CommandLine& cl, const std::string& agent);

// The commands that attach to the running JVM cl.pid.
int run_attach(const CommandLine& cl, const std::string& agent);

}  // namespace jvmkit::cli
