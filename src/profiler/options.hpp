// The agent's options: -agentpath:libjvmkit_prof.so=key=value,key=value,...
//
//   event=NAME       cpu (default), wall, itimer, or a perf event (see event_spec.hpp)
//   interval=N[unit] sampling interval: ns/us/ms/s for time events (a bare number is ns), a plain
//                    count for count events (cycles, page-faults, ...); default per event
//   file=PATH        output file (default jvmkit-profile-<pid>.<format's extension>)
//   format=F         collapsed, html or pprof (default: from file's extension, else html)
//   threads          split stacks by thread (a root frame per thread)
//   ann              annotate frame types in collapsed output (_[j] _[i] _[0] _[n])
//   signal=N         the signal to sample with (default: a real-time signal, SIGRTMIN+6;
//                    itimer: SIGPROF)
// Every option is documented in docs/profiler.md. A malformed list gives an Error whose message
// names the option and what is wrong with it.
#ifndef JVMKIT_PROFILER_OPTIONS_HPP
#define JVMKIT_PROFILER_OPTIONS_HPP

#include <cstdint>
#include <string>
#include <string_view>

#include "profiler/error.hpp"
#include "profiler/event_spec.hpp"

namespace jvmkit::prof {

enum class OutputFormat { kCollapsed, kHtml, kPprof };

struct Options {
  const EventSpec* event = nullptr;  // never null after a successful parse
  int64_t interval = 0;              // ns (time events) or a count; the event's default when not given
  std::string file;                  // never empty after a successful parse
  OutputFormat format = OutputFormat::kHtml;
  bool threads = false;
  bool annotate = false;
  int signal = 0;  // never 0 after a successful parse
};

// Parses TEXT (may be null or empty: all defaults). PID names the default output file.
// On failure OUT is unspecified and the Error's message names the option at fault, e.g.
//   "interval=10xs: unknown unit 'xs' (use ns, us, ms or s)".
Error parse_options(const char* text, int pid, Options* out);

// Parses a duration with an optional ns/us/ms/s suffix ("10ms", "250us", "1000000") into ns.
Error parse_duration(std::string_view text, int64_t* ns);

// The format a file name implies by its extension: .html/.htm -> html; .pb.gz/.pprof/.pb -> pprof;
// anything else -> collapsed.
OutputFormat format_from_file(std::string_view file);

const char* format_name(OutputFormat f);

// The default sampling signal: a real-time signal nobody else in a JVM uses (HotSpot uses SIGUSR2
// and the fault signals; JDK 25's JFR CPU-time sampler takes SIGPROF).
int default_signal();

}  // namespace jvmkit::prof

#endif
