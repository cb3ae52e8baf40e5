// JfrOutput: a run's JFR file, written while the run goes on, a chunk at a time (jfr_chunk.hpp).
//
// Every chunk is whole before it is written, and written with one write(2) at the end of the file:
// a JVM killed with SIGKILL leaves a file of whole chunks, readable up to the last chunk written
// (only a kill in the middle of that one write, which takes well under a millisecond, leaves a
// part of a chunk behind it). The profiler writes a chunk every chunktime (1 s by default), at
// `jvmkit dump`, and the last one, marked final, at stop; in continuous mode each window is a file
// of its own (a "recording file" below), ended by its last chunk.
//
// The file is opened (created, or emptied) at its first chunk, with the run's file pattern
// expanded for the start of the file.
//
// Nothing is lost to a write that fails. A JFR file is a concatenation of self-contained chunks,
// so each file may hold a run of the recording's chunks:
//   - the file asked for keeps the whole chunks written before the failure (a part of a chunk that
//     a full disk took is cut off again, and a file left without a chunk is removed);
//   - the chunk that failed, and every later chunk of that recording file, go to a fallback file
//     (output_fallback.hpp) in the JVM's temporary directory;
//   - a file that is no longer at its path after a chunk (its directory removed, or another file
//     put in its place) reaches nobody: its chunks are read back and go to the fallback too;
//   - a chunk that no file takes (the fallback fails as well) is kept, and written at the next
//     chance (the next chunk, a dump, the stop), to a new fallback file; what is still unwritten
//     when the run ends is reported as lost.
// The result names every file that holds samples with the samples it holds, and the error of the
// file asked for as long as that file misses a part of the recording: a dump or stop then fails
// (the jvmkit tool exits non-zero), even when the fallback holds the rest.
//
// Thread-safe: the window thread writes the periodic chunks while a `jvmkit dump` may write one.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "profiler/options.hpp"
#include "profiler/outputs/chunk_file.hpp"
#include "profiler/outputs/output_fallback.hpp"
#include "profiler/recording/recording.hpp"

namespace jvmkit::prof {

class JfrOutput {
 public:
  // OPTIONS: the run's (file pattern, events, chunktime); ANCHOR_*: the clocks at the run's start.
  JfrOutput(const Options& options, std::string fallback_dir, int64_t anchor_wall_ns, int64_t anchor_mono_ns);
  JfrOutput(const JfrOutput&) = delete;
  JfrOutput& operator=(const JfrOutput&) = delete;

  // Writes RECORDING's samples since the last chunk as a chunk of the current file, ending at
  // NOW_MONO_NS.
  void write_chunk(Recording& recording, int64_t now_mono_ns);
  // Writes WINDOW's rest as the current file's final chunk (ending at END_MONO_NS), and closes the
  // file; the next chunk begins a new file (named for its own start time).
  void end_file(const Recording::Window& window, int64_t end_mono_ns);

  // The files of the current recording file (and of the one just ended, and of earlier ones
  // written since the last call), each with the samples it holds, and the errors met: the run's
  // report and the answer of stop and dump. RUN_ENDS: nothing will be written any more, so the
  // chunks still waiting for a file are given up (counted as lost).
  OutputResult take_result(bool run_ends);

  // The bytes of chunks kept waiting for a file at most: past that the oldest are given up.
  static constexpr size_t kMaxWaitingBytes = 64u << 20;

 private:
  // A chunk on its way to a file; FILE: the recording file it belongs to.
  struct Chunk {
    std::string bytes;
    int64_t samples = 0;
    uint64_t file = 0;
  };
  // What became of one recording file.
  struct Outcome {
    int64_t start_wall_ns = 0;       // names its fallback files
    Error error;                     // the file asked for could not take every chunk
    Error fallback_error;            // the last failure of a fallback file
    std::vector<WrittenFile> files;  // the files that hold its chunks
    bool touched = false;            // written since the last take_result
  };

  std::string chunk_of(const std::vector<const Profile*>& profiles, const std::vector<TimedSample>& samples,
                       const std::vector<SampleThread>& threads, int64_t end_mono_ns, bool final);
  void begin_file_if_needed();
  void deliver(Chunk chunk);
  void write_waiting();
  bool to_asked(Chunk& chunk, Outcome& outcome);
  bool to_fallback(Chunk& chunk, Outcome& outcome);
  Error put(ChunkFile& file, Chunk& chunk, Outcome& outcome, bool fallback);
  void note(Outcome& outcome, const ChunkFile& file, bool fallback);

  mutable std::mutex mutex_;  // guards everything below
  const Options options_;
  const std::string fallback_dir_;
  const int64_t anchor_wall_ns_;
  const int64_t anchor_mono_ns_;
  int64_t chunk_start_mono_ns_ = 0;  // the next chunk begins here
  uint64_t next_key_ = 1;            // the next chunk's first constant-pool key (see ChunkWriter)

  uint64_t file_ = 1;          // the current recording file (the run's, or the window's)
  bool file_begun_ = false;    // it has had its first chunk
  std::string asked_path_;     // its path, the pattern expanded for its start
  ChunkFile asked_;            // the file asked for, while it takes the current file's chunks
  bool asked_failed_ = false;  // ... it failed: the rest goes to a fallback
  ChunkFile fallback_;         // the fallback file being written,
  uint64_t fallback_of_ = 0;   // ... of this recording file
  std::deque<Chunk> waiting_;  // chunks that no file took yet, oldest first
  size_t waiting_bytes_ = 0;
  int64_t lost_samples_ = 0;  // given up since the last take_result
  std::string lost_why_;
  std::map<uint64_t, Outcome> outcomes_;  // by recording file: the current one, and ones not reported
  uint64_t reported_from_ = 1;            // the first recording file take_result reports whole
};

}  // namespace jvmkit::prof
