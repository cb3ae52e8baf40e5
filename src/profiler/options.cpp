#include "profiler/options.hpp"

#include <signal.h>

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

std::string extension_for(OutputFormat f) {
  switch (f) {
    case OutputFormat::kCollapsed:
      return ".collapsed";
    case OutputFormat::kHtml:
      return ".html";
    case OutputFormat::kPprof:
      return ".pb.gz";
  }
  return "";
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool is_sampling_signal_allowed(int sig) {
  if (sig >= SIGRTMIN && sig <= SIGRTMAX) return true;
  return sig == SIGPROF || sig == SIGALRM || sig == SIGVTALRM || sig == SIGUSR1;
}

}  // namespace

int default_signal() { return SIGRTMIN + 6; }

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

OutputFormat format_from_file(std::string_view file) {
  if (ends_with(file, ".html") || ends_with(file, ".htm")) return OutputFormat::kHtml;
  if (ends_with(file, ".pb.gz") || ends_with(file, ".pprof") || ends_with(file, ".pb")) return OutputFormat::kPprof;
  return OutputFormat::kCollapsed;
}

const char* format_name(OutputFormat f) {
  switch (f) {
    case OutputFormat::kCollapsed:
      return "collapsed";
    case OutputFormat::kHtml:
      return "html";
    case OutputFormat::kPprof:
      return "pprof";
  }
  return "?";
}

Error parse_options(const char* text, int pid, Options* out) {
  *out = Options();
  std::string_view interval_text;
  bool interval_given = false;
  bool format_given = false;
  bool signal_given = false;
  std::string_view all = text != nullptr ? std::string_view(text) : std::string_view();
  if (!all.empty()) {
    for (std::string_view item : split(all, ',')) {
      if (item.empty()) return Error("empty option in '" + std::string(all) + "' (two commas, or a trailing comma)");
      size_t eq = item.find('=');
      bool has_value = eq != std::string_view::npos;
      std::string_view key = item.substr(0, eq);
      std::string_view value = has_value ? item.substr(eq + 1) : std::string_view();
      auto need_value = [&]() -> Error {
        if (!has_value || value.empty()) return option_error(key, value, has_value, "needs a value");
        return Error::ok();
      };
      auto no_value = [&]() -> Error {
        if (has_value) return option_error(key, value, has_value, "takes no value");
        return Error::ok();
      };
      if (key == "event") {
        if (Error e = need_value()) return e;
        out->event = find_event(value);
        if (out->event == nullptr) {
          return option_error(key, value, true, std::string("unknown event (known: ") + event_names() + ")");
        }
      } else if (key == "interval") {
        if (Error e = need_value()) return e;
        interval_text = value;
        interval_given = true;
      } else if (key == "file") {
        if (Error e = need_value()) return e;
        out->file = std::string(value);
      } else if (key == "format") {
        if (Error e = need_value()) return e;
        if (value == "collapsed") {
          out->format = OutputFormat::kCollapsed;
        } else if (value == "html") {
          out->format = OutputFormat::kHtml;
        } else if (value == "pprof") {
          out->format = OutputFormat::kPprof;
        } else {
          return option_error(key, value, true, "unknown format (use collapsed, html or pprof)");
        }
        format_given = true;
      } else if (key == "threads") {
        if (Error e = no_value()) return e;
        out->threads = true;
      } else if (key == "ann") {
        if (Error e = no_value()) return e;
        out->annotate = true;
      } else if (key == "signal") {
        if (Error e = need_value()) return e;
        int64_t sig = 0;
        if (!parse_int64(value, &sig) || sig > 1024) return option_error(key, value, true, "not a signal number");
        if (!is_sampling_signal_allowed(static_cast<int>(sig))) {
          return option_error(key, value, true,
                              "signal not usable for sampling: the JVM uses it or it cannot be caught (use " +
                                  std::to_string(SIGPROF) + " (SIGPROF), or a real-time signal " +
                                  std::to_string(SIGRTMIN) + ".." + std::to_string(SIGRTMAX) + ")");
        }
        out->signal = static_cast<int>(sig);
        signal_given = true;
      } else {
        return option_error(key, value, has_value,
                            "unknown option (known: event, interval, file, format, threads, ann, signal)");
      }
    }
  }
  if (out->event == nullptr) out->event = find_event("cpu");
  out->interval = out->event->default_interval;
  if (interval_given) {
    int64_t value = 0;
    if (out->event->time_based) {
      if (Error e = parse_duration(interval_text, &value))
        return option_error("interval", interval_text, true, e.message());
      if (value < kMinTimeIntervalNs) {
        return option_error("interval", interval_text, true, "too small (the minimum is 10us)");
      }
    } else {
      if (!parse_int64(interval_text, &value)) {
        return option_error("interval", interval_text, true,
                            "event " + std::string(out->event->name) + " counts events: give a plain count, no unit");
      }
      if (value < 1) return option_error("interval", interval_text, true, "must be at least 1");
    }
    out->interval = value;
  }
  if (!format_given && !out->file.empty()) out->format = format_from_file(out->file);
  if (out->file.empty()) out->file = "jvmkit-profile-" + std::to_string(pid) + extension_for(out->format);
  if (!signal_given) out->signal = out->event->engine == EngineKind::kItimer ? SIGPROF : default_signal();
  return Error::ok();
}

}  // namespace jvmkit::prof
