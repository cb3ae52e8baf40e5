// PerThreadEngine: the shared bookkeeping of engines that arm one timer or perf event per thread
// (cpu, perf events): a map tid -> handle under a mutex, armed for the threads alive at start and
// for every thread that starts later, disarmed when a thread ends and at stop. With the JVM's own
// threads sampled (EngineConfig::vm_threads: native frames), a lister thread also arms those that
// HotSpot starts later (GC workers and compiler threads added on demand, which no ThreadStart
// reports) and disarms those that ended, every kListingPeriod.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

#include "profiler/engines/engine.hpp"

namespace jvmkit::prof {

class PerThreadEngine : public Engine {
 public:
  Error start(const std::vector<pid_t>& threads) override;
  void stop() override;
  void thread_started(pid_t tid) override;
  void thread_ended(pid_t tid) override;
  int64_t threads_missed() const override { return missed_.load(); }

  static constexpr std::chrono::milliseconds kListingPeriod{200};

 protected:
  // Before start: also arm the threads HotSpot starts later (see above).
  void set_list_threads(bool list) { list_threads_ = list; }

  // Prepares whatever start needs before any thread is armed (e.g. choosing a fallback). An Error
  // aborts start.
  virtual Error prepare(const std::vector<pid_t>& threads) = 0;
  // Arms TID: true with *handle set, or false with *err set (errno).
  virtual bool arm(pid_t tid, long* handle, int* err) = 0;
  virtual void disarm(long handle) = 0;

 private:
  void arm_locked(pid_t tid);
  void list_threads();    // the lister thread's loop
  void relist_threads();  // one listing: arm the new threads, disarm the ended ones

  std::mutex mutex_;
  std::condition_variable wake_;           // the lister's sleep, ended by stop
  std::unordered_map<pid_t, long> armed_;  // guarded by mutex_
  bool running_ = false;                   // guarded by mutex_
  std::atomic<int64_t> missed_{0};
  bool list_threads_ = false;
  std::set<pid_t> listed_;  // the last listing's threads (the lister's own)
  std::thread lister_;
};

}  // namespace jvmkit::prof
