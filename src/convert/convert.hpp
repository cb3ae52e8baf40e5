// `jvmkit convert IN -o OUT [options]`: a recording (jvmkit's JFR, or the JDK's) or collapsed
// stacks, filtered, into collapsed stacks, an HTML flame graph, pprof, or a heatmap
// (docs/profiler/converting.md, "Converting recordings").
//
// It reads the input once, in bounded memory: the recording a chunk at a time, the samples into
// call trees bounded as the profiler's are. A recording cut short, or corrupt past some point, is
// converted up to that point, and the error names the byte offset where reading stopped.
#pragma once

#include <string>
#include <vector>

namespace jvmkit::convert {

// Runs the command with ARGS (after "convert"); messages go to stderr. Returns the exit status:
// 0 written; 1 the input could not be read whole (what preceded the error was written) or the
// output could not be written; 2 a usage error.
int run_convert(const std::vector<std::string>& args);

// `jvmkit diff BASE NEW -o OUT.html [options]`: a differential flame graph of NEW, each frame
// coloured by the change of its share of the samples from BASE (red more, blue less); the inputs
// may be recordings, collapsed stacks or pprof, and convert's filters apply to both. Exit status
// as run_convert's.
int run_diff(const std::vector<std::string>& args);

}  // namespace jvmkit::convert
