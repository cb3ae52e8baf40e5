#include "profiler/outputs/output_fallback.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "profiler/outputs/file_pattern.hpp"
#include "profiler/outputs/output_check.hpp"
#include "profiler/recording/report.hpp"

namespace jvmkit::prof {
namespace {

// Creates every file of FILES new (O_EXCL, no link followed). False when one is taken (the ones
// created are removed again); an Error for any other failure.
Error create_new(const std::vector<std::string>& files, bool* taken) {
  *taken = false;
  std::vector<std::string> created;
  for (const std::string& file : files) {
    const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
      const int err = errno;
      for (const std::string& c : created) unlink(c.c_str());
      if (err == EEXIST) {
        *taken = true;
        return Error::ok();
      }
      return Error("cannot write " + file + ": " + std::strerror(err));
    }
    close(fd);
    created.push_back(file);
  }
  return Error::ok();
}

}  // namespace

// The fallback's options: OPTIONS writing a new file of a free name in DIR, created here.
Error reserve_fallback(const Options& options, const std::string& dir, int pid, int64_t now_wall_ns, Options* out) {
  const std::string stem = (dir.ends_with('/') ? dir : dir + "/") + "jvmkit-" + std::to_string(pid) + "-" +
                           expand_file_pattern("%t", pid, now_wall_ns);
  for (int n = 1; n < 1000; n++) {
    *out = options;
    out->file = stem + (n == 1 ? "" : "-" + std::to_string(n)) + extension_for(options.format);
    bool taken = false;
    if (Error e = create_new(output_files(*out, pid, now_wall_ns), &taken)) return e;
    if (!taken) return Error::ok();
  }
  return Error("cannot write a fallback file in " + dir + ": every name of " + stem + "-N is taken");
}

std::string fallback_directory(const std::string& java_tmpdir) {
  if (!java_tmpdir.empty()) return java_tmpdir;
  const char* env = std::getenv("TMPDIR");
  return env != nullptr && env[0] != '\0' ? env : "/tmp";
}

OutputResult write_with_fallback(std::span<const EventProfile> events, const Options& options, const RunInfo& info,
                                 const std::string& dir, int pid, int64_t now_wall_ns) {
  OutputResult result;
  // On an error, result.files keeps the files already in place whole (a rename after them failed).
  result.error = write_profiles(events, options, info, &result.files);
  if (!result.error) return result;
  result.fallback = true;
  Options fallback;
  result.fallback_error = reserve_fallback(options, dir, pid, now_wall_ns, &fallback);
  if (result.fallback_error) return result;
  std::vector<WrittenFile> written;
  result.fallback_error = write_profiles(events, fallback, info, &written);
  for (WrittenFile& file : written) {
    file.fallback = true;
    result.files.push_back(std::move(file));
  }
  if (result.fallback_error) {
    // The reserved names that did not get their profile: nothing is left behind in DIR.
    for (const std::string& file : output_files(fallback, pid, now_wall_ns)) {
      const bool filled =
          std::any_of(written.begin(), written.end(), [&](const WrittenFile& w) { return w.path == file; });
      if (!filled) unlink(file.c_str());
    }
  }
  return result;
}

std::string output_result_lines(const OutputResult& result, OutputFormat format, const std::vector<int64_t>& samples) {
  std::vector<std::string> lines;
  if (result.error) lines.push_back(output_outcome(result.error, format, "", 0));
  const bool asked_holds_some =
      std::any_of(result.files.begin(), result.files.end(), [](const WrittenFile& f) { return !f.fallback; });
  // The files asked for first, the fallback files last: the last line says where the profile went.
  for (const bool fallback : {false, true}) {
    for (const WrittenFile& file : result.files) {
      if (file.fallback != fallback) continue;
      int64_t count = file.samples;
      if (count < 0) {
        count = 0;
        for (size_t i = 0; i < samples.size(); i++) {
          if (file.event == WrittenFile::kAllEvents || file.event == i) count += samples[i];
        }
      }
      std::string line = output_outcome(Error::ok(), format, file.path, count);
      if (!fallback && result.error) line += " (the part written before the error)";
      if (fallback) {
        line += asked_holds_some ? " (a fallback file: the rest, which the file asked for could not take)"
                                 : " instead (a fallback file: the file asked for could not be written)";
      }
      lines.push_back(std::move(line));
    }
  }
  if (result.fallback_error) {
    lines.push_back("ERROR: the fallback failed too: " + result.fallback_error.message() +
                    (result.files.empty() && result.waiting_samples == 0 ? "; the profile is lost" : ""));
  }
  if (result.waiting_samples > 0) {
    lines.push_back("ERROR: " + std::to_string(result.waiting_samples) +
                    " samples not written yet: no file took them; tried again with the next chunk");
  }
  if (result.lost_samples > 0) {
    lines.push_back("ERROR: " + std::to_string(result.lost_samples) + " samples lost: " + result.lost_why);
  }
  std::string out;
  for (const std::string& line : lines) out += (out.empty() ? "" : "\n") + line;
  return out;
}

}  // namespace jvmkit::prof
