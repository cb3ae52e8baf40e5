// The output files of a run, checked when the run starts: a profile that cannot be written should
// stop the run before any work is done, not be lost when the JVM exits.
//
// The check is the honest one: the directory exists and is a directory, a probe file can be
// created in it (and is removed at once), and an existing output file is not a directory and can be
// opened for writing. Nothing is created at the output path itself, so a refused run leaves no
// empty file behind. The agent runs it in the JVM's process (its user, its file system), the jvmkit
// tool for the files it writes itself or that a JVM of its own user writes in its file system.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "profiler/options.hpp"

namespace jvmkit::prof {

// The directory PATH's file is in: "/a/b" for "/a/b/p.html", "/" for "/p.html", "." for "p.html".
std::string directory_of(std::string_view path);

// The files a profile of OPTIONS writes when it starts at START_WALL_NS in the process PID: the
// file (a pattern expanded), or for collapsed output of several events the file of each event
// (out.cpu.collapsed, out.alloc.collapsed, ...).
std::vector<std::string> output_files(const Options& options, int pid, int64_t start_wall_ns);

// Whether the file PATH can be written, as explained above; the Error says why not:
// "directory /x does not exist", "directory /x is not writable (Permission denied)",
// "/x/p.html is a directory".
Error check_writable(const std::string& path);

// check_writable for every file of output_files, the message led by LABEL (the option as given,
// "file=/x/p.html" or "-o /x/p.html"): "file=/x/p.html: directory /x does not exist".
Error check_output(std::string_view label, const Options& options, int pid, int64_t start_wall_ns);

}  // namespace jvmkit::prof
