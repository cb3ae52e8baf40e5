#include "convert/convert_options.hpp"

#include <time.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <regex>

namespace jvmkit::convert {

namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kDay = 86'400 * kSecond;

Error option_error(std::string_view option, std::string_view value, std::string_view what) {
  return Error(std::string(option) + "=" + std::string(value) + ": " + std::string(what));
}

// "10", "2.5s", "500ms", "1m" -> ns.
bool parse_relative(std::string_view text, int64_t* ns) {
  static const std::regex re(R"(^\+?([0-9]+(\.[0-9]*)?)(ns|us|ms|s|m)?$)");
  std::cmatch m;
  if (!std::regex_match(text.begin(), text.end(), m, re)) return false;
  const double value = std::strtod(m[1].str().c_str(), nullptr);
  const std::string unit = m[3].str();
  const double scale = unit == "ns" ? 1 : unit == "us" ? 1e3 : unit == "ms" ? 1e6 : unit == "m" ? 60e9 : 1e9;
  const double out = value * scale;
  if (!std::isfinite(out) || out > 9e18) return false;
  *ns = static_cast<int64_t>(std::llround(out));
  return true;
}

// "11:10:20", "11:10:20.5" -> ns after midnight; "2026-12-05T11:10:20Z" (the Z optional) -> ns
// since the epoch.
bool parse_wall(std::string_view text, TimePoint* out) {
  static const std::regex re(
      R"(^(([0-9]{4})-([0-9]{2})-([0-9]{2})[T ])?([0-9]{1,2}):([0-9]{2}):([0-9]{2})(\.[0-9]{1,9})?Z?$)");
  std::cmatch m;
  if (!std::regex_match(text.begin(), text.end(), m, re)) return false;
  const int hour = std::atoi(m[5].str().c_str());
  const int minute = std::atoi(m[6].str().c_str());
  const int second = std::atoi(m[7].str().c_str());
  if (hour > 23 || minute > 59 || second > 60) return false;
  int64_t fraction = 0;
  if (m[8].matched) {
    std::string digits = m[8].str().substr(1);
    digits.resize(9, '0');
    fraction = std::atoll(digits.c_str());
  }
  const int64_t of_day = (hour * 3600LL + minute * 60LL + second) * kSecond + fraction;
  out->relative = false;
  if (!m[1].matched) {
    out->time_of_day = true;
    out->wall_ns = of_day;
    return true;
  }
  tm date{};
  date.tm_year = std::atoi(m[2].str().c_str()) - 1900;
  date.tm_mon = std::atoi(m[3].str().c_str()) - 1;
  date.tm_mday = std::atoi(m[4].str().c_str());
  if (date.tm_mon < 0 || date.tm_mon > 11 || date.tm_mday < 1 || date.tm_mday > 31) return false;
  out->wall_ns = static_cast<int64_t>(timegm(&date)) * kSecond + of_day;
  return true;
}

const char* kTimeHelp =
    "not a time (seconds from the recording's first event: 10, 2.5s, 500ms, 1m; or a UTC time: 11:10:20, "
    "2026-12-05T11:10:20Z)";

}  // namespace

int64_t TimePoint::resolve(int64_t first_ns) const {
  if (relative) return first_ns + ns;
  if (!time_of_day) return wall_ns;
  const int64_t midnight = first_ns - ((first_ns % kDay) + kDay) % kDay;
  return midnight + wall_ns;
}

Error parse_time_point(std::string_view text, TimePoint* out) {
  *out = TimePoint();
  if (parse_relative(text, &out->ns)) return Error::ok();
  if (parse_wall(text, out)) return Error::ok();
  return Error(kTimeHelp);
}

Error parse_convert_options(const std::vector<std::string>& args, ConvertOptions* out, std::string_view command) {
  const bool diff = command == "diff";
  *out = ConvertOptions();
  bool format_given = false;
  std::vector<std::string> inputs;
  for (size_t i = 0; i < args.size(); i++) {
    std::string arg = args[i];
    std::string value;
    bool has_inline = false;
    if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos) {
      value = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
      has_inline = true;
    }
    // The value of a flag that takes one: inline (--from=10) or the next argument.
    auto take = [&](std::string* v) -> Error {
      if (has_inline) {
        *v = value;
      } else if (i + 1 < args.size()) {
        *v = args[++i];
      } else {
        return Error(arg + ": needs a value");
      }
      if (v->empty()) return Error(arg + "=: needs a value");
      return Error::ok();
    };
    std::string v;
    if (arg == "-o" || arg == "--output") {
      if (Error e = take(&out->output)) return e;
    } else if (arg == "-f" || arg == "--format") {
      if (Error e = take(&v)) return e;
      format_given = true;
      if (v == "heatmap") {
        out->kind = OutputKind::kHeatmap;
        out->format = prof::OutputFormat::kHtml;
      } else if (v == "collapsed" || v == "html" || v == "pprof") {
        out->format = v == "collapsed" ? prof::OutputFormat::kCollapsed
                      : v == "html"    ? prof::OutputFormat::kHtml
                                       : prof::OutputFormat::kPprof;
      } else {
        return option_error(arg, v, "unknown format (use collapsed, html, pprof or heatmap)");
      }
    } else if (arg == "--from" || arg == "--to") {
      if (Error e = take(&v)) return e;
      TimePoint t;
      if (Error e = parse_time_point(v, &t)) return option_error(arg, v, e.message());
      (arg == "--from" ? out->from : out->to) = t;
    } else if (arg == "--threads") {
      if (Error e = take(&out->threads)) return e;
      try {
        std::regex check(out->threads);
      } catch (const std::regex_error& e) {
        return option_error(arg, out->threads, std::string("not a regular expression: ") + e.what());
      }
    } else if (arg == "--event") {
      if (Error e = take(&out->event)) return e;
    } else if (arg == "--include" || arg == "--exclude") {
      if (Error e = take(&v)) return e;
      try {
        std::regex check(v);
      } catch (const std::regex_error& e) {
        return option_error(arg, v, std::string("not a regular expression: ") + e.what());
      }
      (arg == "--include" ? out->include : out->exclude).push_back(v);
    } else if (arg == "--reverse" || arg == "--total" || arg == "--annotate" || arg == "-a" ||
               arg == "--split-threads") {
      if (has_inline) return Error(arg + "=" + value + ": takes no value");
      (arg == "--reverse"         ? out->reverse
       : arg == "--total"         ? out->total
       : arg == "--split-threads" ? out->threads_split
                                  : out->annotate) = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return Error(arg + ": unknown option of " + std::string(command) + " (see jvmkit --help)");
    } else {
      inputs.push_back(arg);
    }
  }
  if (diff) {
    if (inputs.size() != 2) {
      return Error("diff: needs two profiles, BASE and NEW (recordings, collapsed stacks or pprof), not " +
                   std::to_string(inputs.size()));
    }
    out->base = inputs[0];
    out->input = inputs[1];
  } else {
    if (inputs.empty()) return Error("convert: needs an input file (a .jfr recording or collapsed stacks)");
    if (inputs.size() > 1) return Error("convert: one input file, not " + std::to_string(inputs.size()));
    out->input = inputs[0];
  }
  if (out->output.empty()) return Error(std::string(command) + ": needs -o OUTPUT");
  if (!format_given) {
    if (out->output.ends_with(".heatmap.html")) {
      out->kind = OutputKind::kHeatmap;
      out->format = prof::OutputFormat::kHtml;
    } else {
      out->format = prof::format_from_file(out->output);
    }
  }
  if (out->format == prof::OutputFormat::kJfr) {
    return Error("-o " + out->output + ": convert writes collapsed, html, pprof or a heatmap, not jfr");
  }
  if (diff && (out->format != prof::OutputFormat::kHtml || out->kind != OutputKind::kProfile)) {
    return Error("-o " + out->output + ": diff writes an HTML page (a differential flame graph): name it .html");
  }
  if (out->from && out->to && out->from->relative == out->to->relative && !out->from->time_of_day &&
      (out->from->relative ? out->from->ns >= out->to->ns : out->from->wall_ns >= out->to->wall_ns)) {
    return Error("--from/--to: the range is empty (--from is not before --to)");
  }
  return Error::ok();
}

}  // namespace jvmkit::convert
