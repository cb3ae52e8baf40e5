// JfrOutput: a run's JFR file, written while the run goes on, a chunk at a time (jfr_chunk.hpp).
//
// Every chunk is whole before it is written, and written with one write(2) at the end of the file:
// a JVM killed with SIGKILL leaves a file of whole chunks, readable up to the last chunk written
// (only a kill in the middle of that one write, which takes well under a millisecond, leaves a
// part of a chunk behind it). The profiler writes a chunk every chunktime (1 s by default), at
// `jvmkit dump`, and the last one, marked final, at stop; in continuous mode each window is a file
// of its own, ended by its last chunk.
//
// The file is opened (created, or emptied) at its first chunk, with the run's file pattern
// expanded for the start of the file. When it cannot be opened, or a write fails, the rest of the
// recording goes to a fallback file (output_fallback.hpp) and both are reported.
//
// Thread-safe: the window thread writes the periodic chunks while a `jvmkit dump` may write one.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "profiler/options.hpp"
#include "profiler/output_fallback.hpp"
#include "profiler/recording.hpp"

namespace jvmkit::prof {

class JfrOutput {
 public:
  // OPTIONS: the run's (file pattern, events, chunktime); ANCHOR_*: the clocks at the run's start.
  JfrOutput(const Options& options, std::string fallback_dir, int64_t anchor_wall_ns, int64_t anchor_mono_ns);
  ~JfrOutput();
  JfrOutput(const JfrOutput&) = delete;
  JfrOutput& operator=(const JfrOutput&) = delete;

  // Writes RECORDING's samples since the last chunk as a chunk of the current file, ending at
  // NOW_MONO_NS.
  void write_chunk(Recording& recording, int64_t now_mono_ns);
  // Writes WINDOW's rest as the current file's final chunk (ending at END_MONO_NS), and closes the
  // file; the next chunk begins a new file (named for its own start time).
  void end_file(const Recording::Window& window, int64_t end_mono_ns);

  // The files written since the last call, with the errors met: the run's report and the answer
  // of stop and dump. Hands them out.
  OutputResult take_result();
  // The samples written to the files so far.
  int64_t samples_written() const;

 private:
  void write(const std::string& chunk, int64_t samples);
  bool open_file(int64_t start_mono_ns);
  std::string chunk_of(const std::vector<const Profile*>& profiles, const std::vector<TimedSample>& samples,
                       const std::vector<SampleThread>& threads, int64_t end_mono_ns, bool final);

  mutable std::mutex mutex_;  // guards everything below
  const Options options_;
  const std::string fallback_dir_;
  const int64_t anchor_wall_ns_;
  const int64_t anchor_mono_ns_;
  int fd_ = -1;
  std::string path_;                 // the file being written ("" before its first chunk)
  int64_t chunk_start_mono_ns_ = 0;  // the next chunk begins here
  uint64_t next_key_ = 1;            // the next chunk's first constant-pool key (see ChunkWriter)
  int64_t chunks_ = 0;
  int64_t samples_written_ = 0;
  OutputResult result_;
};

}  // namespace jvmkit::prof
