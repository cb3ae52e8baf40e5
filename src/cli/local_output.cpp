#include "cli/local_output.hpp"

#include <time.h>
#include <unistd.h>

#include "base/clock.hpp"
#include "profiler/options.hpp"
#include "profiler/outputs/output_check.hpp"

namespace jvmkit::cli {

Error check_local_output(const CommandLine& cl, const std::string& path) {
  // The agent's own reading of the options decides the files (the format, the events).
  prof::Options options;
  const std::string list = join_options(start_options(cl, path));
  if (prof::parse_options(list.c_str(), static_cast<int>(getpid()), &options)) {
    return Error::ok();  // a bad option: the agent names it
  }
  const std::string label = cl.output.empty() ? "the default output file " + path : "-o " + cl.output;
  return prof::check_output(label, options, static_cast<int>(getpid()), clock_ns(CLOCK_REALTIME));
}

}  // namespace jvmkit::cli
