// wall: every known thread is sampled once per interval whether it runs, sleeps or blocks. A
// sampler thread of our own (not a Java thread) sends the signal to each thread with tgkill; the
// handler then takes the stack where the thread is (in a blocking call, the Java frames above it).
// The signal handler is installed with SA_RESTART, so interrupted system calls resume.
// With native frames (EngineConfig::vm_threads) the JVM's own threads have traces too, and the
// sampler looks for threads that started since (HotSpot adds GC workers and compiler threads on
// demand, and JVMTI reports no ThreadStart for them) once a second.
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "base/thread_id.hpp"
#include "profiler/engines/engine.hpp"
#include "profiler/thread_list.hpp"

namespace jvmkit::prof {

std::unique_ptr<Engine> make_wall_engine(const EngineConfig& config);

namespace {

class WallEngine final : public Engine {
 public:
  explicit WallEngine(const EngineConfig& config) : config_(config) {}
  ~WallEngine() override { stop(); }

  Error start(const std::vector<pid_t>& threads) override {
    std::lock_guard<std::mutex> lock(mutex_);
    threads_.insert(threads.begin(), threads.end());
    listed_.insert(threads.begin(), threads.end());
    running_ = true;
    sampler_ = std::thread([this] { run(); });
    return Error::ok();
  }

  void stop() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      running_ = false;
    }
    wake_.notify_all();
    if (sampler_.joinable()) sampler_.join();
  }

  void thread_started(pid_t tid) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (tid != sampler_tid_) threads_.insert(tid);
  }

  void thread_ended(pid_t tid) override {
    std::lock_guard<std::mutex> lock(mutex_);
    threads_.erase(tid);
  }

  std::string description() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return "wall: every thread every " + describe_interval(*config_.event, config_.interval) +
           ", running or not (sampler thread + tgkill), signal " + std::to_string(config_.signal) + "; " +
           std::to_string(skipped_) + " threads without Java code left out";
  }

  int64_t threads_missed() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return missed_;
  }

 private:
  void run() {
    pthread_setname_np(pthread_self(), "jvmkit-wall");
    // Block the sampling signal here: this thread is not Java and must never be sampled.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, config_.signal);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    const pid_t pid = getpid();
    {
      // Listings of the process's threads (at VMInit) include this one: never signal it, the
      // signals would queue up against the blocked mask.
      std::lock_guard<std::mutex> lock(mutex_);
      sampler_tid_ = jvmkit::current_tid();
      threads_.erase(sampler_tid_);
    }
    std::vector<pid_t> targets;
    auto next = std::chrono::steady_clock::now();
    auto next_listing = next + kListingPeriod;
    std::unique_lock<std::mutex> lock(mutex_);
    while (running_) {
      if (config_.vm_threads && std::chrono::steady_clock::now() >= next_listing) {
        lock.unlock();
        add_threads_started();
        next_listing = std::chrono::steady_clock::now() + kListingPeriod;
        lock.lock();
      }
      targets.assign(threads_.begin(), threads_.end());
      lock.unlock();
      for (pid_t tid : targets) {
        if (skip_ && skip_(tid)) {
          std::lock_guard<std::mutex> relock(mutex_);
          threads_.erase(tid);
          skipped_++;
          continue;
        }
        if (syscall(SYS_tgkill, pid, tid, config_.signal) != 0 && errno == ESRCH) {
          // The thread ended without a ThreadEnd (a non-Java thread): forget it. (EAGAIN, a full
          // real-time signal queue, only loses this sample.)
          std::lock_guard<std::mutex> relock(mutex_);
          threads_.erase(tid);
          missed_++;
        }
      }
      next += std::chrono::nanoseconds(config_.interval);
      auto now = std::chrono::steady_clock::now();
      if (next < now) next = now;  // fell behind (overloaded machine): do not burst to catch up
      lock.lock();
      wake_.wait_until(lock, next, [this] { return !running_; });
    }
  }

  // The process's threads that started since the last listing, less the skipped ones, those
  // HotSpot is still starting (still called "java": they are looked at again next time) and the
  // stack walker's own ("jvmkit ..."), join the sampled threads. Runs on the sampler thread.
  void add_threads_started() {
    // listed_: only this thread touches it once sampling runs.
    const std::vector<pid_t> started = threads_started(list_process_threads(), &listed_, skip_);
    std::lock_guard<std::mutex> lock(mutex_);
    for (pid_t tid : started) {
      if (tid != sampler_tid_) threads_.insert(tid);
    }
  }

  static constexpr std::chrono::seconds kListingPeriod{1};

  EngineConfig config_;
  std::set<pid_t> listed_;    // the last listing's threads (set by start, then the sampler thread's)
  mutable std::mutex mutex_;  // mutable: description() and threads_missed() read under it
  std::condition_variable wake_;
  std::set<pid_t> threads_;  // guarded by mutex_
  bool running_ = false;     // guarded by mutex_
  pid_t sampler_tid_ = 0;    // guarded by mutex_
  int64_t missed_ = 0;       // guarded by mutex_ (written by the sampler thread)
  int64_t skipped_ = 0;      // threads dropped by the skip filter; guarded by mutex_
  std::thread sampler_;
};

}  // namespace

std::unique_ptr<Engine> make_wall_engine(const EngineConfig& config) { return std::make_unique<WallEngine>(config); }

}  // namespace jvmkit::prof
