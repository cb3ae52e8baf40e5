// The output files the jvmkit tool checks on its own side before any work is done: launch mode's
// -o (the JVM it starts runs as this user, in this file system), and the -o of profile, stop and
// dump when the tool writes that file itself or a JVM of its own user writes it in this file
// system. File name patterns and start's file of a JVM of another user or in another container are
// checked by the agent, in the JVM (src/profiler/outputs/output_check.hpp).
#pragma once

#include <string>

#include "base/error.hpp"
#include "cli/command_line.hpp"

namespace jvmkit::cli {

// Whether the profile CL asks for can be written at PATH (absolute; a collapsed profile of several
// events: each event's file). The message names the option: "-o /x/p.html: directory /x does not
// exist".
Error check_local_output(const CommandLine& cl, const std::string& path);

}  // namespace jvmkit::cli
