#include "profiler/engines/per_thread_engine.hpp"

#include <pthread.h>

#include "profiler/thread_list.hpp"

namespace jvmkit::prof {

void PerThreadEngine::arm_locked(pid_t tid) {
  if (!running_ || armed_.count(tid) != 0) return;
  int err = 0;
  long handle = 0;
  if (arm(tid, &handle, &err)) {
    armed_[tid] = handle;
  } else {
    missed_++;  // typically ESRCH: the thread ended between listing and arming
  }
}

Error PerThreadEngine::start(const std::vector<pid_t>& threads) {
  if (Error e = prepare(threads)) return e;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    running_ = true;
    for (pid_t tid : threads) arm_locked(tid);
  }
  if (list_threads_) {
    listed_ = std::set<pid_t>(threads.begin(), threads.end());
    lister_ = std::thread([this] { list_threads(); });
  }
  return Error::ok();
}

void PerThreadEngine::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    running_ = false;
  }
  wake_.notify_all();
  if (lister_.joinable()) lister_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [tid, handle] : armed_) disarm(handle);
  armed_.clear();
}

void PerThreadEngine::thread_started(pid_t tid) {
  std::lock_guard<std::mutex> lock(mutex_);
  arm_locked(tid);
}

void PerThreadEngine::thread_ended(pid_t tid) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = armed_.find(tid);
  if (it == armed_.end()) return;
  disarm(it->second);
  armed_.erase(it);
}

void PerThreadEngine::list_threads() {
  pthread_setname_np(pthread_self(), "jvmkit lister");
  std::unique_lock<std::mutex> lock(mutex_);
  while (running_) {
    if (wake_.wait_for(lock, kListingPeriod, [this] { return !running_; })) break;
    lock.unlock();
    relist_threads();
    lock.lock();
  }
}

// The threads started since the last listing are armed (threads_started says which); an armed
// thread that is gone ended without a ThreadEnd (one of HotSpot's own): disarmed.
void PerThreadEngine::relist_threads() {
  const std::vector<pid_t> now = list_process_threads();
  const std::vector<pid_t> started = threads_started(now, &listed_, skip_);
  std::lock_guard<std::mutex> lock(mutex_);
  for (pid_t tid : started) arm_locked(tid);
  const std::set<pid_t> alive(now.begin(), now.end());
  for (auto it = armed_.begin(); it != armed_.end();) {
    if (alive.count(it->first) != 0) {
      ++it;
      continue;
    }
    disarm(it->second);
    it = armed_.erase(it);
  }
}

}  // namespace jvmkit::prof
