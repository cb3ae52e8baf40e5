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
//
// A consumer that expects more work soon may nap() instead: a timed sleep that notify() does not
// cut short (so producers make no syscall while it naps) but urge() does. Producers urge only when
// waiting for the nap's end would cost too much (a queue filling up). Protocol: nap() announces the
// nap, then re-checks the consumer's urgency condition; a producer makes the condition true, then
// calls urge(). With both sides sequentially consistent, either the re-check sees the condition
// or the producer sees the nap announced and wakes it.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>

#include "base/signal_safe.hpp"

namespace jvmkit {

class WakeEvent {
 public:
  uint32_t prepare() const noexcept { return word_.load(std::memory_order_seq_cst); }

  // Sleeps until notify() is called after prepare() returned token, or timeout_ns elapses, or a
  // spurious wake-up. The caller re-checks its condition in all cases.
  void wait(uint32_t token, int64_t timeout_ns) noexcept {
    waiters_.fetch_add(1, std::memory_order_seq_cst);
    if (word_.load(std::memory_order_seq_cst) == token) {
      struct timespec ts = to_timespec(timeout_ns);
      syscall(SYS_futex, futex_word(), FUTEX_WAIT_PRIVATE, token, &ts, nullptr, 0);
    }
    waiters_.fetch_sub(1, std::memory_order_seq_cst);
  }

  // Wakes the waiter, if any.
  JVMKIT_SIGNAL_SAFE void notify() noexcept {
    word_.fetch_add(1, std::memory_order_seq_cst);
    if (waiters_.load(std::memory_order_seq_cst) != 0) futex_wake(&word_);
  }

  // Sleeps timeout_ns, or less if urge() is called meanwhile. Does not sleep at all if URGENT()
  // holds once the nap is announced.
  template <class Urgent>
  void nap(int64_t timeout_ns, Urgent&& urgent) noexcept {
    napping_.store(1, std::memory_order_seq_cst);
    const uint32_t seen = urge_word_.load(std::memory_order_seq_cst);
    if (!urgent() && napping_.load(std::memory_order_seq_cst) != 0) {
      struct timespec ts = to_timespec(timeout_ns);
      syscall(SYS_futex, reinterpret_cast<uint32_t*>(&urge_word_), FUTEX_WAIT_PRIVATE, seen, &ts, nullptr, 0);
    }
    napping_.store(0, std::memory_order_seq_cst);
  }

  // Whether a nap is under way (a plain load: producers check it before they
  // compute whether to urge).
  JVMKIT_SIGNAL_SAFE bool napping() const noexcept { return napping_.load(std::memory_order_seq_cst) != 0; }

  // Ends the current nap, if any: one syscall per nap at most, however many
  // producers urge it.
  JVMKIT_SIGNAL_SAFE void urge() noexcept {
    if (napping_.load(std::memory_order_seq_cst) == 0) return;
    if (napping_.exchange(0, std::memory_order_seq_cst) == 0) return;
    urge_word_.fetch_add(1, std::memory_order_seq_cst);
    futex_wake(&urge_word_);
  }

 private:
  static struct timespec to_timespec(int64_t ns) noexcept {
    struct timespec ts;
    ts.tv_sec = static_cast<time_t>(ns / 1000000000);
    ts.tv_nsec = static_cast<long>(ns % 1000000000);
    return ts;
  }
  JVMKIT_SIGNAL_SAFE static void futex_wake(std::atomic<uint32_t>* word) noexcept {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
  }
  uint32_t* futex_word() noexcept { return reinterpret_cast<uint32_t*>(&word_); }

  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t), "futex word must be 32 bits");
  std::atomic<uint32_t> word_{0};
  std::atomic<uint32_t> waiters_{0};
  std::atomic<uint32_t> urge_word_{0};
  std::atomic<uint32_t> napping_{0};
};

}  // namespace jvmkit
