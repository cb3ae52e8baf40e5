#include "convert/convert.hpp"

#include <cstdio>

#include "convert/convert_options.hpp"
#include "convert/profile_set.hpp"
#include "convert/sample_filter.hpp"
#include "convert/samples.hpp"
#include "profiler/outputs/writers.hpp"
#include "profiler/recording/report.hpp"

namespace jvmkit::convert {

namespace {

void say(const std::string& line) { std::fprintf(stderr, "jvmkit: %s\n", line.c_str()); }

// One input read through the filters into a set of profiles; an input error is reported here.
struct Input {
  Error error;
  int64_t read = 0;  // samples read, kept or not
};

Input read_input(const std::string& path, const ConvertOptions& options, ProfileSet& profiles) {
  SampleFilter filter(options);
  Input in;
  in.error = read_samples(path, options.event, [&](const Sample& s) {
    in.read += s.count;
    if (filter.keep(s)) profiles.add(s);
    return true;
  });
  if (in.error) say(in.error.message() + (in.read > 0 ? "; converting the samples before it" : ""));
  if (filter.untimed() > 0) {
    say("--from/--to: " + std::to_string(filter.untimed()) + " samples of " + path +
        " without a time (collapsed stacks, pprof) left out");
  }
  return in;
}

// Writes EVENTS to OPTIONS' output and says what was written; the exit status.
int write_output(const ConvertOptions& options, const std::vector<prof::EventProfile>& events,
                 const ProfileSet& profiles, const std::string& title, int64_t read, bool input_error) {
  prof::Options out;
  out.file = options.output;
  out.format = options.format;
  out.annotate = options.annotate;
  prof::RunInfo info;
  info.title = title;
  info.start_time_ns = profiles.first_ns();
  info.duration_ns = profiles.last_ns() - profiles.first_ns();
  std::vector<prof::WrittenFile> written;
  if (Error e = prof::write_profiles(events, out, info, &written)) {
    say(e.message());
    return 1;
  }
  for (const prof::WrittenFile& f : written) {
    int64_t samples = 0;
    for (size_t i = 0; i < events.size(); i++) {
      if (f.event == prof::WrittenFile::kAllEvents || f.event == i) samples += events[i].profile->total_samples();
    }
    say(prof::output_outcome(Error::ok(), out.format, f.path, samples) + " (of " + std::to_string(read) + " read)");
  }
  return input_error ? 1 : 0;
}

}  // namespace

int run_convert(const std::vector<std::string>& args) {
  ConvertOptions options;
  if (Error e = parse_convert_options(args, &options)) {
    say(e.message());
    return 2;
  }
  // The HTML page keeps the samples' times (its heatmap) when the input has them.
  ProfileSet profiles(options.reverse, options.threads_split, options.format == prof::OutputFormat::kHtml);
  const Input in = read_input(options.input, options, profiles);
  if (in.error && in.read == 0) return 1;
  const std::vector<prof::EventProfile> events = profiles.event_profiles(options.total);
  if (events.empty()) {
    say(options.input + ": no samples" +
        (in.read > 0 ? " left after the filters (" + std::to_string(in.read) + " read)" : ""));
    return in.error ? 1 : 0;
  }
  if (options.kind == OutputKind::kHeatmap && !profiles.has_cells()) {
    say("heatmap: " + options.input + " has no times (collapsed stacks and pprof have none): convert a recording");
    return 1;
  }
  return write_output(options, events, profiles, "jvmkit: " + options.input, in.read, static_cast<bool>(in.error));
}

int run_diff(const std::vector<std::string>& args) {
  ConvertOptions options;
  if (Error e = parse_convert_options(args, &options, "diff")) {
    say(e.message());
    return 2;
  }
  ProfileSet base(options.reverse, options.threads_split);
  ProfileSet now(options.reverse, options.threads_split);
  const Input in_base = read_input(options.base, options, base);
  const Input in_now = read_input(options.input, options, now);
  if ((in_base.error && in_base.read == 0) || (in_now.error && in_now.read == 0)) return 1;
  std::vector<prof::EventProfile> events = now.event_profiles(options.total);
  const std::vector<prof::EventProfile> bases = base.event_profiles(options.total);
  // Each event of NEW against the same event of BASE; an event BASE lacks is all new.
  prof::Profile empty;
  for (prof::EventProfile& e : events) {
    e.base = &empty;
    for (const prof::EventProfile& b : bases)
      if (b.event == e.event) e.base = b.profile;
    e.description = e.event + " against " + options.base;
  }
  if (events.empty()) {
    say(options.input + ": no samples");
    return 1;
  }
  return write_output(options, events, now, "jvmkit diff: " + options.input + " against " + options.base,
                      in_base.read + in_now.read, in_base.error || in_now.error);
}

}  // namespace jvmkit::convert
