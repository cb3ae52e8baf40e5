// A mutex that spins for a while before it sleeps (glibc's PTHREAD_MUTEX_ADAPTIVE_NP).
//
// For short critical sections contended by a few threads: there, putting a waiter to sleep on a
// futex and waking it again costs microseconds (more on a VM), many times the wait itself, and
// a plain std::mutex makes two threads that alternate on it pay that on nearly every call.
// Same interface as std::mutex (Lockable), so std::lock_guard works with it.
#pragma once

#include <pthread.h>

namespace jvmkit {

class AdaptiveMutex {
 public:
  AdaptiveMutex() {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&mutex_, &attr);
    pthread_mutexattr_destroy(&attr);
  }
  ~AdaptiveMutex() { pthread_mutex_destroy(&mutex_); }
  AdaptiveMutex(const AdaptiveMutex&) = delete;
  AdaptiveMutex& operator=(const AdaptiveMutex&) = delete;

  void lock() { pthread_mutex_lock(&mutex_); }
  bool try_lock() { return pthread_mutex_trylock(&mutex_) == 0; }
  void unlock() { pthread_mutex_unlock(&mutex_); }

 private:
  pthread_mutex_t mutex_;
};

}  // namespace jvmkit
