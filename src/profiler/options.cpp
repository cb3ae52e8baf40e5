#include "profiler/options.hpp"

#include <signal.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <vector>

namespace jvmkit::prof {
namespace {

// Splits "a=1,b,c=2" into items; values cannot contain commas (a file path with a comma cannot
// be given here; the launcher refuses it with a clear message).
std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool parse_int64(std::string_view digits, int64_t* value) {
  if (digits.empty()) return false;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
  }
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *value);
  return ec == std::errc() && ptr == digits.data() + digits.size();
}

Error option_error(std::string_view key, std::string_view value, bool has_value, const std::string& what) {
  std::string where(key);
  if (has_value) {
    where += '=';
    where += value;
  }
  return Error(where + ": " + what);
}

// Smallest time interval accepted: below it the signals alone would eat a core.
constexpr int64_t kMinTimeIntervalNs = 10'000;

bool is_sampling_signal_allowed(int sig) {
  if (sig >= SIGRTMIN && sig <= SIGRTMAX) return true;
  return sig == SIGPROF || sig == SIGALRM || sig == SIGVTALRM || sig == SIGUSR1;
}

}  // namespace

int default_signal() { return SIGRTMIN + 6; }

const char* action_name(Action a) {
  switch (a) {
    case Action::kStart:
      return "start";
    case Action::kStop:
      return "stop";
    case Action::kDump:
      return "dump";
    case Action::kStatus:
      return "status";
  }
  return "?";
}

Error parse_duration(std::string_view text, int64_t* ns) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') digits++;
  std::string_view number = text.substr(0, digits);
  std::string_view unit = text.substr(digits);
  int64_t value = 0;
  if (number.empty()) return Error("not a number (expected e.g. 10ms, 500us, 1000000)");
  if (!parse_int64(number, &value)) return Error("number out of range");
  int64_t scale = 1;
  if (unit.empty() || unit == "ns") {
    scale = 1;
  } else if (unit == "us") {
    scale = 1'000;
  } else if (unit == "ms") {
    scale = 1'000'000;
  } else if (unit == "s") {
    scale = 1'000'000'000;
  } else {
    return Error("unknown unit '" + std::string(unit) + "' (use ns, us, ms or s)");
  }
  if (value > std::numeric_limits<int64_t>::max() / scale) return Error("number out of range");
  *ns = value * scale;
  return Error::ok();
}

Error parse_size(std::string_view text, int64_t* bytes) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') digits++;
  std::string_view number = text.substr(0, digits);
  std::string_view unit = text.substr(digits);
  int64_t value = 0;
  if (number.empty()) return Error("not a size (expected e.g. 512k, 4m, 1000)");
  if (!parse_int64(number, &value)) return Error("number out of range");
  int shift = 0;
  if (unit.empty()) {
    shift = 0;
  } else if (unit == "k" || unit == "K") {
    shift = 10;
  } else if (unit == "m" || unit == "M") {
    shift = 20;
  } else if (unit == "g" || unit == "G") {
    shift = 30;
  } else {
    return Error("unknown unit '" + std::string(unit) + "' (use k, m or g, or bytes as a bare number)");
  }
  if (value > (std::numeric_limits<int64_t>::max() >> shift)) return Error("number out of range");
  *bytes = value << shift;
  return Error::ok();
}

bool Options::has(EngineKind kind) const {
  return std::any_of(events.begin(), events.end(), [kind](const EventSpec* e) { return e->engine == kind; });
}

int64_t Options::interval_of(const EventSpec& e) const {
  if (e.engine == EngineKind::kAlloc) return alloc_bytes;
  if (e.engine == EngineKind::kLock) return lock_ns;
  return interval;
}

std::string events_text(const Options& options) {
  std::string out;
  for (const EventSpec* e : options.events) {
    if (!out.empty()) out += ',';
    out += e->name;
  }
  return out;
}

// What parse_options has seen so far: the options, and what must wait until the whole list is
// read (the interval's meaning depends on the event; file and signal defaults on format and event).
struct OptionParse {
  Options* out = nullptr;
  std::vector<const EventSpec*> events;  // as given, each once
  std::string_view interval_text;
  bool interval_given = false;
  bool format_given = false;
  bool signal_given = false;
  bool action_given = false;
};

namespace {

// The option handlers. Each gets the value (non-empty when the option takes one) and returns only
// what is wrong with it; parse_options puts the option in front.
void add_event(const EventSpec* event, OptionParse& p) {
  if (std::find(p.events.begin(), p.events.end(), event) == p.events.end()) p.events.push_back(event);
}

// event=NAME; several events are several event= options, or event=cpu,alloc,lock (the names after
// the first are items of their own, which apply_option takes as events).
Error set_event(std::string_view value, OptionParse& p) {
  const EventSpec* event = find_event(value);
  if (event == nullptr) return Error("unknown event (known: " + event_names() + ")");
  add_event(event, p);
  return Error::ok();
}

// alloc[=SIZE]: allocation sampling, one sample every SIZE bytes on average.
Error set_alloc(std::string_view value, OptionParse& p) {
  if (!value.empty()) {
    if (Error e = parse_size(value, &p.out->alloc_bytes)) return e;
    if (p.out->alloc_bytes > INT32_MAX) return Error("too large (JVMTI takes at most 2g - 1 bytes)");
  }
  add_event(find_event("alloc"), p);
  return Error::ok();
}

Error set_live(std::string_view /*value*/, OptionParse& p) {
  p.out->live = true;
  return Error::ok();
}

// lock[=DURATION]: contended monitors and parked threads that waited at least DURATION.
Error set_lock(std::string_view value, OptionParse& p) {
  if (!value.empty()) {
    if (Error e = parse_duration(value, &p.out->lock_ns)) return e;
  }
  add_event(find_event("lock"), p);
  return Error::ok();
}

Error set_interval(std::string_view value, OptionParse& p) {
  p.interval_text = value;
  p.interval_given = true;
  return Error::ok();
}

Error set_file(std::string_view value, OptionParse& p) {
  p.out->file = std::string(value);
  return Error::ok();
}

Error set_format(std::string_view value, OptionParse& p) {
  if (value == "collapsed") {
    p.out->format = OutputFormat::kCollapsed;
  } else if (value == "html") {
    p.out->format = OutputFormat::kHtml;
  } else if (value == "pprof") {
    p.out->format = OutputFormat::kPprof;
  } else if (value == "jfr") {
    p.out->format = OutputFormat::kJfr;
  } else {
    return Error("unknown format (use collapsed, html, pprof or jfr)");
  }
  p.format_given = true;
  return Error::ok();
}

Error set_threads(std::string_view value, OptionParse& p) {
  if (value.empty() || value == "virtual") {
    p.out->threads = ThreadGrouping::kThread;
  } else if (value == "carrier") {
    p.out->threads = ThreadGrouping::kCarrier;
  } else if (value == "none") {
    p.out->threads = ThreadGrouping::kNone;
  } else {
    return Error("unknown value (use threads, threads=virtual, threads=carrier or threads=none)");
  }
  return Error::ok();
}

Error set_annotate(std::string_view /*value*/, OptionParse& p) {
  p.out->annotate = true;
  return Error::ok();
}

Error set_labels(std::string_view /*value*/, OptionParse& p) {
  p.out->labels = true;
  return Error::ok();
}

Error set_signal(std::string_view value, OptionParse& p) {
  int64_t sig = 0;
  if (!parse_int64(value, &sig) || sig > 1024) return Error("not a signal number");
  if (!is_sampling_signal_allowed(static_cast<int>(sig))) {
    return Error("signal not usable for sampling: the JVM uses it or it cannot be caught (use " +
                 std::to_string(SIGPROF) + " (SIGPROF), or a real-time signal " + std::to_string(SIGRTMIN) + ".." +
                 std::to_string(SIGRTMAX) + ")");
  }
  p.out->signal = static_cast<int>(sig);
  p.signal_given = true;
  return Error::ok();
}

Error set_action(Action action, OptionParse& p) {
  if (p.action_given && p.out->action != action) {
    return Error(std::string("only one of start, stop, dump, status may be given (already ") +
                 action_name(p.out->action) + ")");
  }
  p.out->action = action;
  p.action_given = true;
  return Error::ok();
}
Error set_start(std::string_view, OptionParse& p) { return set_action(Action::kStart, p); }
Error set_stop(std::string_view, OptionParse& p) { return set_action(Action::kStop, p); }
Error set_dump(std::string_view, OptionParse& p) { return set_action(Action::kDump, p); }
Error set_status(std::string_view, OptionParse& p) { return set_action(Action::kStatus, p); }

Error set_reply(std::string_view value, OptionParse& p) {
  if (value.front() != '/') return Error("must be an absolute path");
  p.out->reply = std::string(value);
  return Error::ok();
}

Error set_loop(std::string_view value, OptionParse& p) {
  if (Error e = parse_duration(value, &p.out->loop_ns)) return e;
  if (p.out->loop_ns < kMinLoopNs) return Error("too short (the shortest window is 1s)");
  return Error::ok();
}

Error set_chunktime(std::string_view value, OptionParse& p) {
  if (Error e = parse_duration(value, &p.out->chunk_ns)) return e;
  if (p.out->chunk_ns < kMinChunkNs) return Error("too short (the shortest is 100ms)");
  return Error::ok();
}

Error set_bounded_int(std::string_view value, int64_t low, int64_t high, int64_t* out) {
  int64_t v = 0;
  if (!parse_int64(value, &v)) return Error("not a number");
  if (v < low || v > high) return Error("out of range (" + std::to_string(low) + ".." + std::to_string(high) + ")");
  *out = v;
  return Error::ok();
}

Error set_keep(std::string_view value, OptionParse& p) {
  int64_t v = 0;
  if (Error e = set_bounded_int(value, 1, 1'000'000, &v)) return e;
  p.out->keep = static_cast<int>(v);
  return Error::ok();
}

Error set_depth(std::string_view value, OptionParse& p) {
  int64_t v = 0;
  if (Error e = set_bounded_int(value, 1, kMaxDepth, &v)) return e;
  p.out->depth = static_cast<int>(v);
  return Error::ok();
}

Error set_max_stacks(std::string_view value, OptionParse& p) {
  return set_bounded_int(value, 1000, int64_t{1} << 31, &p.out->max_stacks);
}

// cstack=no|native: native frames in the signal event's stacks.
Error set_cstack(std::string_view value, OptionParse& p) {
  if (value == "no") {
    p.out->cstack = CStack::kNo;
  } else if (value == "native") {
    p.out->cstack = CStack::kNative;
  } else {
    return Error("unknown value (known: no, native)");
  }
  p.out->cstack_given = true;
  return Error::ok();
}

// The option catalogue: the one list of agent options. The parser, its "known: ..." message and the
// unit test that holds docs/profiler/options.md and the launcher's usage to it all read this table.
constexpr OptionSpec kOptions[] = {
    {"event", "NAME", "-e, --event", set_event},
    {"interval", "N", "-i, --interval", set_interval},
    {"file", "PATH", "-o, --output", set_file},
    {"format", "F", "-f, --format", set_format},
    {"threads", "MODE", "-t, --threads", set_threads, true},
    {"ann", "", "-a, --annotate", set_annotate},
    {"labels", "", "--labels", set_labels},
    {"signal", "N", "-s, --signal", set_signal},
    {"loop", "DURATION", "--loop", set_loop},
    {"keep", "N", "--keep", set_keep},
    {"chunktime", "DURATION", "--chunktime", set_chunktime},
    {"depth", "N", "--depth", set_depth},
    {"max_stacks", "N", "--max-stacks", set_max_stacks},
    {"alloc", "SIZE", "--alloc", set_alloc, true},
    {"lock", "DURATION", "--lock", set_lock, true},
    {"live", "", "--live", set_live},
    {"cstack", "MODE", "--cstack", set_cstack},
    // Set by the command-line tool itself, from its command word and for its answer.
    {"start", "", "", set_start},
    {"stop", "", "", set_stop},
    {"dump", "", "", set_dump},
    {"status", "", "", set_status},
    {"reply", "PATH", "", set_reply},
};

const OptionSpec* find_option(std::string_view key) {
  for (const OptionSpec& o : kOptions) {
    if (o.key == key) return &o;
  }
  return nullptr;
}

// One item of the list, "key" or "key=value", applied to P.
Error apply_option(std::string_view item, OptionParse& p) {
  size_t eq = item.find('=');
  bool has_value = eq != std::string_view::npos;
  std::string_view key = item.substr(0, eq);
  std::string_view value = has_value ? item.substr(eq + 1) : std::string_view();
  const OptionSpec* spec = find_option(key);
  if (spec == nullptr && !has_value && find_event(key) != nullptr) {
    add_event(find_event(key), p);  // event=cpu,wall: "wall" is the second event
    return Error::ok();
  }
  if (spec == nullptr) return option_error(key, value, has_value, "unknown option (known: " + option_names() + ")");
  const bool value_missing = spec->value_optional ? has_value && value.empty() : !has_value || value.empty();
  if (spec->takes_value() && value_missing) return option_error(key, value, has_value, "needs a value");
  if (!spec->takes_value() && has_value) return option_error(key, value, has_value, "takes no value");
  if (Error e = spec->apply(value, p)) return option_error(key, value, has_value, e.message());
  return Error::ok();
}

// The interval, once the event is known: a duration for time events, a count otherwise.
Error parse_interval(std::string_view text, const EventSpec& event, int64_t* interval) {
  int64_t value = 0;
  if (event.time_based) {
    if (Error e = parse_duration(text, &value)) return option_error("interval", text, true, e.message());
    if (value < kMinTimeIntervalNs) return option_error("interval", text, true, "too small (the minimum is 10us)");
  } else {
    if (!parse_int64(text, &value)) {
      return option_error("interval", text, true,
                          "event " + std::string(event.name) + " counts events: give a plain count, no unit");
    }
    if (value < 1) return option_error("interval", text, true, "must be at least 1");
  }
  *interval = value;
  return Error::ok();
}

// The run's events from what was given: cpu when none; at most one signal event; table order.
Error choose_events(OptionParse& p) {
  Options& out = *p.out;
  if (p.events.empty()) p.events.push_back(find_event("cpu"));
  out.events.clear();
  for (const EventSpec& e : all_events()) {
    if (std::find(p.events.begin(), p.events.end(), &e) != p.events.end()) out.events.push_back(&e);
  }
  out.event = nullptr;
  for (const EventSpec* e : out.events) {
    if (!e->signal_based()) continue;
    if (out.event != nullptr) {
      return Error("event=" + events_text(out) + ": one signal event per run (" + std::string(out.event->name) +
                   " and " + std::string(e->name) + " were given); alloc and lock go with any of them");
    }
    out.event = e;
  }
  return Error::ok();
}

}  // namespace

std::span<const OptionSpec> option_specs() { return kOptions; }

const std::string& option_names() {
  static const std::string names = [] {
    std::string out;
    for (const OptionSpec& o : kOptions) {
      if (!out.empty()) out += ", ";
      out += o.key;
    }
    return out;
  }();
  return names;
}

std::string reply_option(std::string_view text) {
  for (std::string_view item : split(text, ',')) {
    if (item.substr(0, 6) == "reply=" && item.size() > 7 && item[6] == '/') return std::string(item.substr(6));
  }
  return "";
}

Error parse_options(const char* text, int pid, Options* out) {
  *out = Options();
  OptionParse p;
  p.out = out;
  std::string_view all = text != nullptr ? std::string_view(text) : std::string_view();
  if (!all.empty()) {
    for (std::string_view item : split(all, ',')) {
      if (item.empty()) return Error("empty option in '" + std::string(all) + "' (two commas, or a trailing comma)");
      if (Error e = apply_option(item, p)) return e;
    }
  }
  if (Error e = choose_events(p)) return e;
  if (out->event != nullptr) {
    out->interval = out->event->default_interval;
    if (p.interval_given) {
      if (Error e = parse_interval(p.interval_text, *out->event, &out->interval)) return e;
    }
  } else if (p.interval_given) {
    return option_error("interval", p.interval_text, true,
                        "no signal event to sample at it (" + events_text(*out) +
                            ": alloc takes alloc=SIZE, lock takes lock=DURATION)");
  }
  out->file_given = !out->file.empty();
  out->format_given = p.format_given;
  if (out->loop_ns > 0 && out->file.find("%t") == std::string::npos) {
    return Error(
        "loop: needs file= with %t in it (the window's start time), or every window would overwrite the "
        "last");
  }
  if (out->keep > 0 && out->loop_ns == 0) return Error("keep=" + std::to_string(out->keep) + ": only with loop=");
  if (out->live && !out->has(EngineKind::kAlloc)) return Error("live: only with the alloc event");
  if (!out->cstack_given) out->cstack = out->event != nullptr ? CStack::kNative : CStack::kNo;
  if (out->cstack == CStack::kNative && out->event == nullptr) {
    return Error("cstack=native: only with a signal event (cpu, wall, itimer or a perf event): " + events_text(*out) +
                 " takes Java frames only");
  }
  if (!p.format_given && !out->file.empty()) out->format = format_from_file(out->file);
  if (out->file.empty()) out->file = "jvmkit-profile-" + std::to_string(pid) + extension_for(out->format);
  if (!p.signal_given) {
    out->signal = out->event != nullptr && out->event->engine == EngineKind::kItimer ? SIGPROF : default_signal();
  }
  return Error::ok();
}

}  // namespace jvmkit::prof
