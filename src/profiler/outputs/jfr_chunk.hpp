// A chunk of a run's JFR file: the samples since the previous chunk, each an event with its time,
// thread and stack, in the event types of docs/profiler/outputs.md ("JFR output"):
//   cpu, itimer   jdk.ExecutionSample (state STATE_DEFAULT, as async-profiler's CPU samples)
//   wall          profiler.WallClockSample (async-profiler's type; state STATE_UNKNOWN)
//   perf events   jvmkit.PerfEventSample (the event's name, the period as its weight)
//   alloc         jdk.ObjectAllocationSample (the class, the bytes the sample stands for)
//   lock          jdk.JavaMonitorEnter (a monitor) or jdk.ThreadPark (a park), with the wait as
//                 the duration and the lock's class
// each followed by a jvmkit.SampleContext when its thread had a request context; and in every
// chunk jdk.ActiveRecording and a jdk.ActiveSetting per option, so that each chunk reads on its
// own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/options.hpp"
#include "profiler/recording/profile.hpp"
#include "profiler/recording/timeline.hpp"

namespace jvmkit::prof {

struct JfrChunkSpan {
  // The clocks at one moment (the run's start): every chunk derives its wall-clock times from
  // them, so that the times of all chunks agree.
  int64_t anchor_wall_ns = 0;
  int64_t anchor_mono_ns = 0;
  int64_t start_mono_ns = 0;  // the chunk's start and end (CLOCK_MONOTONIC)
  int64_t end_mono_ns = 0;
  int64_t recording_start_wall_ns = 0;
  bool final = false;  // the recording's last chunk
  // The chunk's first constant-pool key, and where the next chunk's start (updated): a file's keys
  // never name two things (jfr/chunk_writer.hpp).
  uint64_t* next_key = nullptr;
};

// The chunk of SAMPLES (their stacks in PROFILES, one per event of OPTIONS, their threads in
// THREADS), written to PATH.
std::string jfr_chunk(const Options& options, const std::string& path, const JfrChunkSpan& span,
                      const std::vector<const Profile*>& profiles, const std::vector<TimedSample>& samples,
                      const std::vector<SampleThread>& threads);

}  // namespace jvmkit::prof
