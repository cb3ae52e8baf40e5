// src/profiler/ (the files of the folder itself): what every room of the profiler uses: the options
// a run is asked for (this file; output_format.cpp names the formats), the events it can sample
// (event_spec.hpp), names in standard UTF-8 (utf8.hpp) and the process's threads (thread_list.hpp).
// The rooms, from the ground up: context/, recording/, then engines/, events/ and outputs/, then
// run/, the controller (src/profiler/CMakeLists.txt; docs/design.md, "Floors").
//
// The agent's options: -agentpath:libjvmkit_prof.so=key=value,key,...
//
// The options are the rows of the catalogue in options.cpp (option_specs()): the parser and its
// messages read it, docs/profiler/options.md ("Agent options") documents every row, and the launcher's
// usage names the flag that sets each one; a unit test holds the docs and the usage to the table.
// A malformed list gives an Error whose message names the option and what is wrong with it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "profiler/event_spec.hpp"

namespace jvmkit::prof {

enum class OutputFormat { kCollapsed, kHtml, kPprof, kJfr };

// threads=: whether stacks get a root frame per thread, and which thread: the one that ran the code
// (a virtual thread on its own, kThread) or the OS thread it ran on (a virtual thread's carrier).
enum class ThreadGrouping { kNone, kThread, kCarrier };

// Which native frames the signal event's stacks get (cstack=): none (the Java frames, as the
// stack-walk JEP gives them), or C/C++ and the JVM's own code (jvmkit's native-frames extension).
enum class CStack { kNo, kNative };

// What a load of the agent asks for. At JVM start (-agentpath) only kStart; through the attach
// mechanism (Agent_OnAttach) any of them: that is how `jvmkit start|stop|dump|status` reach it.
enum class Action { kStart, kStop, kDump, kStatus };

// Limits of the stack depth option (the stack-walk library's JvmkitSetMaxStackDepth range).
constexpr int kDefaultDepth = 2048;
constexpr int kMaxDepth = 65536;
// The profile's default bound between dumps, in distinct call-tree nodes.
constexpr int64_t kDefaultMaxStacks = 1'000'000;
// The shortest continuous-mode window.
constexpr int64_t kMinLoopNs = 1'000'000'000;
// JFR output: a chunk is written to the file this often (chunktime=), and at least this often.
constexpr int64_t kDefaultChunkNs = 1'000'000'000;
constexpr int64_t kMinChunkNs = 100'000'000;

// Defaults of the JVM events' options: the heap sampler's mean interval, the shortest lock wait.
constexpr int64_t kDefaultAllocBytes = 512 * 1024;
constexpr int64_t kDefaultLockNs = 10'000;

struct Options {
  // The signal event (cpu, wall, itimer, a perf event): at most one per run; null when the run
  // samples only JVM events (alloc, lock).
  const EventSpec* event = nullptr;
  // Every event of the run (the signal event among them), in the order of the event table; never
  // empty after a successful parse.
  std::vector<const EventSpec*> events;
  int64_t interval = 0;  // of `event`: ns (time events) or a count; the event's default when not given
  int64_t alloc_bytes = kDefaultAllocBytes;  // alloc: mean bytes between two sampled allocations
  int64_t lock_ns = kDefaultLockNs;          // lock: the shortest wait sampled
  bool live = false;                         // alloc: only objects not yet freed when the profile is written
  std::string file;                          // never empty after a successful parse
  OutputFormat format = OutputFormat::kHtml;
  ThreadGrouping threads = ThreadGrouping::kNone;
  bool annotate = false;
  bool labels = false;  // collapsed output: a root frame "[k=v,...]" per request-context label set
  int signal = 0;       // never 0 after a successful parse
  Action action = Action::kStart;
  bool file_given = false;                 // file= was in the list (stop/dump without it use the run's file)
  bool format_given = false;               // format= was in the list
  std::string reply;                       // attach only: where the answer goes (a new file), "" for stderr
  int64_t loop_ns = 0;                     // continuous mode: window length, 0 = one profile per run
  int64_t chunk_ns = kDefaultChunkNs;      // JFR output: how often a chunk is written to the file
  int keep = 0;                            // continuous mode: window files kept, 0 = all
  int depth = kDefaultDepth;               // most frames of a stack
  int64_t max_stacks = kDefaultMaxStacks;  // the profile's bound between dumps (call-tree nodes)
  // Native frames of the signal event (alloc, lock: never). Without cstack=, mixed stacks wherever
  // they work: native with a signal event, and the run falls back to Java frames where the stack
  // walker refuses native frames (a JDK or platform it cannot unwind); cstack=native given is
  // refused there instead.
  CStack cstack = CStack::kNo;
  bool cstack_given = false;  // cstack= was in the list

  bool has(EngineKind kind) const;
  // The interval (or threshold, or mean size) that EVENT samples at in this run.
  int64_t interval_of(const EventSpec& event) const;
};

// "cpu", "cpu,alloc,lock": the run's events, for messages and reports.
std::string events_text(const Options& options);

const char* action_name(Action a);

// What parse_options keeps while it reads the list (defined in options.cpp).
struct OptionParse;

// One agent option.
struct OptionSpec {
  std::string_view key;             // "event" in event=cpu
  std::string_view value_name;      // "NAME" in event=NAME as the docs write it; "" for a flag
  std::string_view launcher_flags;  // "-e, --event": the launcher's flags that set it, as its usage lists them
  Error (*apply)(std::string_view value, OptionParse& parse);  // the value is non-empty when one is given
  bool value_optional = false;  // "alloc" and "alloc=SIZE" both (documented as alloc[=SIZE])

  bool takes_value() const { return !value_name.empty(); }
};

// Every option, in the order messages list them.
std::span<const OptionSpec> option_specs();

// "event, interval, file, ...": every option key, for messages.
const std::string& option_names();

// Parses TEXT (may be null or empty: all defaults). PID names the default output file.
// FILE may hold %p (PID), %t (the profile's start time) and %%; loop= needs %t in it.
// On failure OUT is unspecified and the Error's message names the option at fault, e.g.
//   "interval=10xs: unknown unit 'xs' (use ns, us, ms or s)".
Error parse_options(const char* text, int pid, Options* out);

// The reply= value of the option list TEXT, found even when the list does not parse (a bad list's
// message must still reach the tool); "" when there is none or it is not an absolute path.
std::string reply_option(std::string_view text);

// Parses a duration with an optional ns/us/ms/s suffix ("10ms", "250us", "1000000") into ns.
Error parse_duration(std::string_view text, int64_t* ns);

// Parses a size in bytes with an optional k, m or g suffix (either case; powers of 1024):
// "512k", "4m", "1000".
Error parse_size(std::string_view text, int64_t* bytes);

// The format a file name implies by its extension: .html/.htm -> html; .pb.gz/.pprof/.pb -> pprof;
// .jfr -> jfr; anything else -> collapsed.
OutputFormat format_from_file(std::string_view file);

const char* format_name(OutputFormat f);

// The extension of a file of format F: ".collapsed", ".html", ".pb.gz", ".jfr".
std::string extension_for(OutputFormat f);

// The default sampling signal: a real-time signal nobody else in a JVM uses (HotSpot uses SIGUSR2
// and the fault signals; JDK 25's JFR CPU-time sampler takes SIGPROF).
int default_signal();

}  // namespace jvmkit::prof
