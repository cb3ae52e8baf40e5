// PerThreadEngine: the shared bookkeeping of engines that arm one timer or perf event per thread
// (cpu, perf events): a map tid -> handle under a mutex, armed for the threads alive at start and
// for every thread that starts later, disarmed when a thread ends and at stop.
#pragma once

#include <atomic>
#include <mutex>
#include <unordered_map>

#include "profiler/engine.hpp"

namespace jvmkit::prof {

class PerThreadEngine : public Engine {
 public:
  Error start(const std::vector<pid_t>& threads) override;
  void stop() override;
  void thread_started(pid_t tid) override;
  void thread_ended(pid_t tid) override;
  int64_t threads_missed() const override { return missed_.load(); }

 protected:
  // Prepares whatever start needs before any thread is armed (e.g. choosing a fallback). An Error
  // aborts start.
  virtual Error prepare(const std::vector<pid_t>& threads) = 0;
  // Arms TID: true with *handle set, or false with *err set (errno).
  virtual bool arm(pid_t tid, long* handle, int* err) = 0;
  virtual void disarm(long handle) = 0;

 private:
  std::mutex mutex_;
  std::unordered_map<pid_t, long> armed_;  // guarded by mutex_
  bool running_ = false;                   // guarded by mutex_
  std::atomic<int64_t> missed_{0};
};

}  // namespace jvmkit::prof
