#include "profiler/run/run_output.hpp"

#include <unistd.h>

#include "base/clock.hpp"
#include "profiler/engines/engine.hpp"
#include "profiler/outputs/file_pattern.hpp"
#include "profiler/outputs/writers.hpp"
#include "profiler/utf8.hpp"

namespace jvmkit::prof {

std::string program_name(jvmtiEnv* jvmti) {
  char* command = nullptr;
  if (jvmti->GetSystemProperty("sun.java.command", &command) != JVMTI_ERROR_NONE || command == nullptr) return "java";
  std::string first = utf8_from_modified(command);
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(command));
  first = first.substr(0, first.find(' '));
  if (const size_t slash = first.rfind('/'); slash != std::string::npos) first = first.substr(slash + 1);
  return first.empty() ? "java" : first;
}

std::string java_tmpdir(jvmtiEnv* jvmti) {
  char* value = nullptr;
  if (jvmti->GetSystemProperty("java.io.tmpdir", &value) != JVMTI_ERROR_NONE || value == nullptr) return "";
  std::string out = value;
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(value));
  return out;
}

OutputResult write_run_output(const Run& run, const Options& output, const std::vector<const Profile*>& profiles,
                              int64_t start_wall_ns, int64_t duration_ns) {
  Options expanded = output;
  expanded.file = expand_file_pattern(output.file, static_cast<int>(getpid()), start_wall_ns);
  RunInfo info;
  info.title = "jvmkit profile: " + events_text(output);
  info.event = events_text(output);
  info.start_time_ns = start_wall_ns;
  info.duration_ns = duration_ns;
  info.program = run.program.empty() ? "java" : run.program;
  info.window = output.loop_ns > 0;
  std::vector<EventProfile> events;
  for (size_t i = 0; i < output.events.size() && i < profiles.size(); i++) {
    const EventSpec& spec = *output.events[i];
    EventProfile e;
    e.profile = profiles[i];
    e.event = std::string(spec.name);
    e.description = std::string(spec.name) + ", " +
                    (spec.engine == EngineKind::kLock ? "waits of at least " : "interval ") +
                    describe_interval(spec, output.interval_of(spec));
    e.count_type = std::string(spec.pprof_count_type);
    e.value_type = std::string(spec.pprof_type);
    e.value_unit = std::string(spec.pprof_unit);
    e.interval = output.interval_of(spec);
    e.weighted = spec.weighted;
    events.push_back(std::move(e));
  }
  return write_with_fallback(events, expanded, info, run.fallback_dir, static_cast<int>(getpid()),
                             jvmkit::clock_ns(CLOCK_REALTIME));
}

void start_jfr_output(Run& run) {
  if (run.options.format != OutputFormat::kJfr) return;
  run.jfr = std::make_unique<JfrOutput>(run.options, run.fallback_dir, run.start_wall_ns, run.start_mono_ns);
}

OutputResult finish_jfr_output(Run& run, const Recording::Window& window, bool run_ends) {
  run.jfr->end_file(window, window.start_mono_ns + window.duration_ns);
  return run.jfr->take_result(run_ends);
}

OutputResult flush_jfr_output(Run& run) {
  run.jfr->write_chunk(*run.recording, jvmkit::monotonic_ns());
  return run.jfr->take_result(false);
}

bool writes_run_recording(const Run& run, const Options& output) {
  return run.jfr && output.format == OutputFormat::kJfr && output.file == run.options.file;
}

std::string jfr_output_refusal(const Run& run, const Options& output) {
  if (output.format != OutputFormat::kJfr) return "";
  if (!run.jfr) {
    return "jfr output: only a run started with it keeps the samples' times (start with -o FILE.jfr); this run "
           "writes " +
           std::string(format_name(run.options.format));
  }
  if (output.file != run.options.file) {
    return "jfr output: the run writes its recording to " + run.options.file +
           " as it goes; stop and dump end or extend that file (give no other -o)";
  }
  return "";
}

OutputResult write_run_window(Run& run, const Recording::Window& window, bool run_ends) {
  OutputResult result = run.jfr ? finish_jfr_output(run, window, run_ends)
                                : write_run_output(run, run.options, profile_list(window.profiles),
                                                   window.start_wall_ns, window.duration_ns);
  for (const WrittenFile& file : result.files) run.windows.written(file.path);
  if (result.error) run.window_errors++;
  if (!result.files.empty()) run.last_window = result.files.back().path;
  return result;
}

void add_window_errors(const Run& run, OutputResult* last, std::string* line) {
  const int64_t earlier = run.window_errors - (last->error ? 1 : 0);
  if (earlier <= 0) return;
  const std::string text = std::to_string(earlier) + (earlier == 1 ? " earlier window" : " earlier windows") +
                           " could not be written to " + run.options.file;
  *line += "\nERROR: " + text + ": the JVM's stderr named the files that hold them as they were written";
  if (!last->error) last->error = Error(text);
}

std::vector<int64_t> sample_counts(const std::vector<const Profile*>& profiles) {
  std::vector<int64_t> out;
  for (const Profile* p : profiles) out.push_back(p->total_samples());
  return out;
}

std::vector<const Profile*> profile_list(const std::vector<std::unique_ptr<Profile>>& profiles) {
  std::vector<const Profile*> out;
  for (const auto& p : profiles) out.push_back(p.get());
  return out;
}

}  // namespace jvmkit::prof
