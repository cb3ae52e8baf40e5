#include "stack_walk/native/native_tables.hpp"

#include <pthread.h>

#include <cstdio>
#include <cstdlib>

#include "stack_walk/native/native_counters.hpp"

namespace jvmkit::walk {

void NativeTables::start(bool wait) {
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
  wake_.notify_all();
}

void NativeTables::watch() {
  pthread_setname_np(pthread_self(), "jvmkit native");
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    update_locked(!prepared_once_ || nudged_);
    nudged_ = false;
    wake_.wait_for(lock, kPollPeriod, [this] { return stopping_ || nudged_; });
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
