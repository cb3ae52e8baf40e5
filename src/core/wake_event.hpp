// A wake-up from signal context to one waiting thread, on a Linux futex.
//
// notify() is async-signal-safe: one atomic increment and, only when a thread is actually asleep,
// one futex(FUTEX_WAKE) syscall. It never blocks and never allocates. wait() is for an ordinary
// thread (the consumer).
//
// Protocol (no lost wake-up): the consumer takes token = prepare(), checks its queue, and if it is
// empty calls wait(token). A producer publishes first, then calls notify(), which changes the word:
// either the consumer's re-check inside wait() sees the new value, or the kernel's compare in
// FUTEX_WAIT does, or the consumer is already asleep and counted in waiters_, so notify wakes it.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>

namespace jvmkit {

class WakeEvent {
 public:
  uint32_t prepare() const noexcept { return word_.load(std::memory_order_seq_cst); }

  // Sleeps until notify() is called after prepare() returned token, or timeout_ns elapses, or a
  // spurious wake-up. The caller re-checks its condition in all cases.
  void wait(uint32_t token, int64_t timeout_ns) noexcept {
    waiters_.fetch_add(1, std::memory_order_seq_cst);
    if (word_.load(std::memory_order_seq_cst) == token) {
      struct timespec ts;
      ts.tv_sec = static_cast<time_t>(timeout_ns / 1000000000);
      ts.tv_nsec = static_cast<long>(timeout_ns % 1000000000);
      syscall(SYS_futex, futex_word(), FUTEX_WAIT_PRIVATE, token, &ts, nullptr, 0);
    }
    waiters_.fetch_sub(1, std::memory_order_seq_cst);
  }

  // Async-signal-safe. Wakes the waiter, if any.
  void notify() noexcept {
    word_.fetch_add(1, std::memory_order_seq_cst);
    if (waiters_.load(std::memory_order_seq_cst) != 0) {
      syscall(SYS_futex, futex_word(), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
    }
  }

 private:
  uint32_t* futex_word() noexcept { return reinterpret_cast<uint32_t*>(&word_); }

  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t), "futex word must be 32 bits");
  std::atomic<uint32_t> word_{0};
  std::atomic<uint32_t> waiters_{0};
};

}  // namespace jvmkit
