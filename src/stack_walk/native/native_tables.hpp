// The unwind tables of a session with native frames, and the thread that keeps them current.
//
// Enable prepares every loaded object (at once with JVMKIT_NATIVE_WAIT, else on the watcher);
// then the watcher, "jvmkit native" (a plain pthread: it never calls Java), polls the loader's
// change counters every kPollPeriod and prepares what was loaded since, so a library loaded while
// sampling is unwound from within the period plus its preparation time. A capture that meets code
// of no prepared object wakes it at once (wake_native_watcher, through an eventfd: a write is
// async-signal-safe), so the wait is mostly the preparation alone. All libelf and libdw
// handles belong to that one thread (they are not thread-safe): the preparer is only ever driven
// by whoever holds mutex_. Not signal context, but for the cell's readers.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "base/signal_safe.hpp"
#include "native/loaded_objects.hpp"
#include "native/native_snapshot.hpp"

namespace jvmkit::walk {

// SIGNAL CONTEXT: asks the watcher to look for new objects now (a PC in no prepared object). At
// most one wake-up is pending; the watcher takes the next one no sooner than kWakeGap later, so
// code that stays unknown (another runtime's JIT code) costs at most one check per kWakeGap.
JVMKIT_SIGNAL_SAFE void wake_native_watcher() noexcept;

class NativeTables {
 public:
  static constexpr std::chrono::milliseconds kPollPeriod{50};
  static constexpr std::chrono::milliseconds kWakeGap{10};

  NativeTables() = default;
  ~NativeTables() { release(); }
  NativeTables(const NativeTables&) = delete;
  NativeTables& operator=(const NativeTables&) = delete;

  // Starts the watcher; with WAIT, prepares every loaded object before returning.
  void start(bool wait);
  // Stops the watcher. The tables stay readable until release().
  void stop();
  // Frees the tables: only once no capture and no delivery can read them any more.
  void release();
  // The tables' cell, or nullptr when not started.
  const native::NativeSnapshotCell* cell() const noexcept { return preparer_ ? &preparer_->cell() : nullptr; }
  // Asks the watcher to look for new objects now (a delivered trace met an unprepared one).
  void nudge();

 private:
  void watch();
  // Prepares what changed since the last update (mutex_ held); force: even if the counters agree.
  void update_locked(bool force);

  // Waits up to kPollPeriod for a wake-up (mutex_ not held); true when one came.
  static bool wait_for_wake();

  std::unique_ptr<native::NativePreparer> preparer_;
  std::thread watcher_;
  std::mutex mutex_;
  std::condition_variable wake_;  // stop's, during the gap after a wake-up
  bool stopping_ = false;
  bool nudged_ = false;
  bool prepared_once_ = false;
  native::LoadGeneration generation_;
};

}  // namespace jvmkit::walk
