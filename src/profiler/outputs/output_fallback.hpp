// Where a profile goes when its file cannot be written at the end of a run (the disk full, the
// directory removed meanwhile): a file of its own in the JVM's temporary directory, named so that
// it is found (jvmkit-<pid>-<yyyymmdd-hhmmss>.<ext>) and named in the report and in the answer to
// the jvmkit tool. The profile of a run is never lost to a late error while a file can be written
// there.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "profiler/options.hpp"
#include "profiler/outputs/writers.hpp"

namespace jvmkit::prof {

// The fallback directory: JAVA_TMPDIR (the JVM's java.io.tmpdir) when not empty, else $TMPDIR when
// set, else /tmp.
std::string fallback_directory(const std::string& java_tmpdir);

// A profile written, to the files asked for or to the fallback.
struct OutputResult {
  Error error;  // why the files asked for could not be written (ok: they were, whole)
  // The files written, each holding its samples: the ones asked for, or the fallback's, or for a
  // JFR recording both (the file asked for holds the chunks written before its error).
  std::vector<WrittenFile> files;
  bool fallback = false;  // some of FILES are fallback files
  Error fallback_error;   // a fallback could not be written either
  // JFR: samples of chunks that no file took yet (written at the next chance), and samples given
  // up (the run ended with them unwritten, or too many waited), with why.
  int64_t waiting_samples = 0;
  int64_t lost_samples = 0;
  std::string lost_why;
};

// Writes EVENTS as write_profiles does; when that fails, writes them again to DIR/jvmkit-PID-<time
// NOW_WALL_NS, yyyymmdd-hhmmss> with OPTIONS' format's extension ("-2", "-3", ... before it when
// the name is taken; a collapsed profile of several events: a file per event, as always). The
// fallback files are created new, never through an existing file or symbolic link: DIR is often
// shared (/tmp).
OutputResult write_with_fallback(std::span<const EventProfile> events, const Options& options, const RunInfo& info,
                                 const std::string& dir, int pid, int64_t now_wall_ns);

// Reserves a fallback file for OPTIONS' output in DIR as write_with_fallback names it (created
// new and empty): OUT is OPTIONS with that file.
Error reserve_fallback(const Options& options, const std::string& dir, int pid, int64_t now_wall_ns, Options* out);

// The report's lines for RESULT, of a profile in FORMAT whose events have SAMPLES samples each (a
// file that counts its own samples, WrittenFile::samples, says those): the error first, then a
// line per file that holds samples, once each ("wrote html output (N samples) to /x/p.html"), the
// files asked for before the fallback files ("... instead (a fallback file: ...)"), then what
// failed or is missing besides. The last line says where the profile went.
std::string output_result_lines(const OutputResult& result, OutputFormat format, const std::vector<int64_t>& samples);

}  // namespace jvmkit::prof
