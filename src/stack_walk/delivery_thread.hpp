// The delivery thread: one JVMTI agent thread ("jvmkit stack walker") that takes the published
// requests in publication order and has the Deliverer give each its outcome. Its loop decides
// when to sleep: a long wait on the pool's wake event while no request comes, short naps while
// requests keep coming (so that captures find no waiter and make no syscall).
// Not signal context.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "stack_walk/code_map.hpp"
#include "stack_walk/deliverer.hpp"
#include "stack_walk/own_env.hpp"
#include "stack_walk/request_pool.hpp"
#include "stack_walk/thread_registry.hpp"
#include "stack_walk/virtual_thread_table.hpp"

namespace jvmkit::walk {

class DeliveryThread {
 public:
  DeliveryThread(const OwnEnv& env, Deliverer& deliverer, ThreadRegistry& threads, EnvOffset& env_offset,
                 CodeMap& code_map, VirtualThreadTable& virtual_threads)
      : env_(env),
        deliverer_(deliverer),
        threads_(threads),
        env_offset_(env_offset),
        code_map_(code_map),
        virtual_threads_(virtual_threads) {}

  // Enable, before requests open: not started, not stopping.
  void reset();
  // Starts the agent thread on POOL (from the live-phase setup, on a thread attached as JNI) and
  // waits until it runs. On an error it says why on stderr.
  jvmtiError start(JNIEnv* jni, RequestPool* pool);
  // Disable, after the request gate closed and emptied: every request accepted from POOL has its
  // outcome when this returns. A running thread drains the pool and exits; if it never ran
  // (Enable in Agent_OnLoad, Disable before VMInit) the requests fail here, on this thread.
  void finish(RequestPool& pool);
  // Disable in the dead phase: the thread may still wake from its futex wait, and must then stop
  // (its pool is left allocated for it).
  void stop_without_waiting() { stop_.store(true, std::memory_order_seq_cst); }

 private:
  enum class State { kNotStarted, kRunning, kExited };

  static void JNICALL thread_main(jvmtiEnv* jvmti, JNIEnv* jni, void* arg);
  void loop(JNIEnv* jni);
  void set_state(State state);
  void drain_without_thread(RequestPool& pool);

  const OwnEnv& env_;
  Deliverer& deliverer_;
  ThreadRegistry& threads_;
  EnvOffset& env_offset_;
  CodeMap& code_map_;
  VirtualThreadTable& virtual_threads_;
  RequestPool* pool_ = nullptr;  // set by start, before the thread runs
  std::mutex mutex_;
  std::condition_variable changed_;
  State state_ = State::kNotStarted;
  std::atomic<bool> stop_{false};
};

}  // namespace jvmkit::walk
