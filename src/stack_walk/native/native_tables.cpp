#include "stack_walk/native/native_tables.hpp"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "stack_walk/native/native_counters.hpp"

namespace jvmkit::walk {
namespace {

// The watcher's eventfd, made once and kept for the process's life: a handler may still write to
// it after a session ended, and a closed descriptor's number could belong to another file then.
std::atomic<int> g_wake_fd{-1};
std::atomic<bool> g_wake_pending{false};

int wake_fd() {
  static const int fd = [] {
    const int made = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    g_wake_fd.store(made, std::memory_order_release);
    return made;
  }();
  return fd;
}

void post_wake() {
  const int fd = wake_fd();
  const uint64_t one = 1;
  if (fd >= 0) (void)!write(fd, &one, sizeof(one));
}

}  // namespace

JVMKIT_SIGNAL_SAFE void wake_native_watcher() noexcept {
  const int fd = g_wake_fd.load(std::memory_order_acquire);
  if (fd < 0 || g_wake_pending.exchange(true, std::memory_order_relaxed)) return;
  const uint64_t one = 1;
  (void)!write(fd, &one, sizeof(one));
}

bool NativeTables::wait_for_wake() {
  pollfd p{wake_fd(), POLLIN, 0};
  if (p.fd < 0) {
    std::this_thread::sleep_for(kPollPeriod);
    return false;
  }
  if (poll(&p, 1, static_cast<int>(kPollPeriod.count())) <= 0) return false;
  uint64_t count = 0;
  (void)!read(p.fd, &count, sizeof(count));
  return true;
}

void NativeTables::start(bool wait) {
  wake_fd();
  std::unique_lock<std::mutex> lock(mutex_);
  if (!preparer_) preparer_ = std::make_unique<native::NativePreparer>();
  stopping_ = false;
  prepared_once_ = false;
  if (wait) update_locked(true);
  lock.unlock();
  watcher_ = std::thread([this] { watch(); });
}

void NativeTables::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  post_wake();
  if (watcher_.joinable()) watcher_.join();
}

void NativeTables::release() {
  stop();
  std::lock_guard<std::mutex> lock(mutex_);
  preparer_.reset();
}

void NativeTables::nudge() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    nudged_ = true;
  }
  post_wake();
}

void NativeTables::watch() {
  pthread_setname_np(pthread_self(), "jvmkit native");
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    update_locked(!prepared_once_ || nudged_);
    nudged_ = false;
    lock.unlock();
    const bool woken = wait_for_wake();
    lock.lock();
    if (woken && !stopping_ && !nudged_) {
      // A capture's wake-up: look now, and take the next one no sooner than kWakeGap later.
      update_locked(false);
      wake_.wait_for(lock, kWakeGap, [this] { return stopping_; });
    }
    g_wake_pending.store(false, std::memory_order_relaxed);
  }
}

void NativeTables::update_locked(bool force) {
  const native::LoadGeneration now = native::load_generation();
  if (!force && prepared_once_ && now == generation_) {
    preparer_->reclaim();
    return;
  }
  generation_ = now;
  prepared_once_ = true;
  const native::PrepareSummary summary = preparer_->update(native::loaded_objects());
  int64_t prepared = 0, failed = 0, rows = 0;
  const bool debug = std::getenv("JVMKIT_WALK_DEBUG") != nullptr;
  for (const auto& object : preparer_->current()->objects()) {
    if (debug) {
      std::fprintf(stderr, "jvmkit: native tables: %s%s%s\n", object->path.c_str(),
                   object->prepared() ? "" : " (not prepared)", object->stays_mapped ? "" : " (may be unloaded)");
    }
    if (object->prepared()) {
      prepared++;
      rows += static_cast<int64_t>(object->rows.size());
    } else {
      failed++;
    }
  }
  NativeCounters& counters = native_counters();
  counters.objects_prepared.store(prepared, std::memory_order_relaxed);
  counters.objects_failed.store(failed, std::memory_order_relaxed);
  counters.unwind_rows.store(rows, std::memory_order_relaxed);
  counters.prepare_ns.fetch_add(static_cast<int64_t>(summary.ns), std::memory_order_relaxed);
  preparer_->reclaim();
}

}  // namespace jvmkit::walk
