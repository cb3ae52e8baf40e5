// Timeline: a window's samples with the time each was taken and the thread it was taken on, for
// the outputs that keep time (JFR). The profiles hold the stacks: a sample names its node, whose
// path to the root is its stack.
//
// Kept only when the run writes JFR. A chunk of the file takes the samples since the previous one
// (take_samples), so the samples held are those of one chunk period. Bounded: past kMaxSamples
// held at once (a writer that cannot keep up), samples are left out of the timeline, and counted
// (they stay in the profiles).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace jvmkit::prof {

struct TimedSample {
  int64_t time_ns;  // CLOCK_MONOTONIC: when the stack was taken
  int64_t weight;   // as the profile counts it (the interval, bytes, ns waited)
  uint32_t node;    // the sample's node in its event's profile
  uint32_t thread;  // index into Timeline::threads()
  uint16_t slot;    // its event (Recording's slot)
  bool park;        // lock: a parked thread (LockSupport.park), not a monitor
  // The OpenTelemetry trace (two halves) and span ids of the thread's request context at the
  // sample (JvmkitContext.withSpan), 0 when unset.
  uint64_t trace_high = 0;
  uint64_t trace_low = 0;
  uint64_t span = 0;
};

struct SampleThread {
  pid_t tid = 0;  // 0 for a virtual thread
  bool is_virtual = false;
  int64_t java_tid = -1;  // -1: a thread without a java.lang.Thread (one of the JVM's own)
  std::string name;       // the Java name, or the OS name of a thread without one
};

class Timeline {
 public:
  static constexpr size_t kMaxSamples = size_t{1} << 22;  // about 230 MB of samples

  // The index of KEY's thread in threads() (an OS tid, or a virtual thread's negated id: see
  // SampleOwner::key); MAKE describes it the first time it is seen.
  uint32_t thread(int64_t key, const std::function<SampleThread()>& make);
  // TID names a new thread from now on (the OS reused it).
  void thread_started(pid_t tid) { thread_ids_.erase(tid); }

  void add(const TimedSample& sample);
  const std::vector<TimedSample>& samples() const { return samples_; }
  const std::vector<SampleThread>& threads() const { return threads_; }
  int64_t dropped() const { return dropped_; }

  // The samples since the last call, handed out; the threads stay (their indices are the window's).
  std::vector<TimedSample> take_samples();

 private:
  std::vector<TimedSample> samples_;
  std::vector<SampleThread> threads_;
  std::unordered_map<int64_t, uint32_t> thread_ids_;
  int64_t dropped_ = 0;
};

}  // namespace jvmkit::prof
