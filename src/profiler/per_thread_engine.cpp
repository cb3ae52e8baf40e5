#include "profiler/per_thread_engine.hpp"

namespace jvmkit::prof {

Error PerThreadEngine::start(const std::vector<pid_t>& threads) {
  if (Error e = prepare(threads)) return e;
  std::lock_guard<std::mutex> lock(mutex_);
  running_ = true;
  for (pid_t tid : threads) {
    if (armed_.count(tid) != 0) continue;
    int err = 0;
    long handle = 0;
    if (arm(tid, &handle, &err)) {
      armed_[tid] = handle;
    } else {
      missed_++;  // typically ESRCH: the thread ended between listing and arming
    }
  }
  return Error::ok();
}

void PerThreadEngine::stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  running_ = false;
  for (auto& [tid, handle] : armed_) disarm(handle);
  armed_.clear();
}

void PerThreadEngine::thread_started(pid_t tid) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!running_ || armed_.count(tid) != 0) return;
  int err = 0;
  long handle = 0;
  if (arm(tid, &handle, &err)) {
    armed_[tid] = handle;
  } else {
    missed_++;
  }
}

void PerThreadEngine::thread_ended(pid_t tid) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = armed_.find(tid);
  if (it == armed_.end()) return;
  disarm(it->second);
  armed_.erase(it);
}

}  // namespace jvmkit::prof
