// The virtual threads alive, by id (Thread.threadId()), so that the delivery thread can name the
// virtual thread a trace was taken from after it has unmounted: jvmkit's own environment listens to
// VirtualThreadStart and VirtualThreadEnd (JDK 21+, with can_support_virtual_threads) and keeps a
// weak reference to each. Sharded: the events come on every carrier at once.
//
// A virtual thread may end before the traces taken while it ran are delivered (short tasks end
// within microseconds). So an ended thread stays, held by a strong reference, until the delivery
// thread has taken every request published before its end (tickets, as in thread_registry.hpp).
//
// Bounded (kMaxThreads): past it, new virtual threads are not kept (counted in overflow()), and
// are named only while they stay mounted (virtual_threads.hpp's fallback).
//
// Not signal context: JVMTI event callbacks and the delivery thread.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace jvmkit::walk {

class VirtualThreadTable {
 public:
  static constexpr size_t kMaxThreads = size_t{1} << 20;

  // VirtualThreadStart of THREAD, on JNI's thread.
  void started(JNIEnv* jni, jthread thread);
  // VirtualThreadEnd of THREAD; requests published from ticket END on are not its.
  void ended(JNIEnv* jni, jthread thread, uint64_t end);
  // Keeps THREAD under ID (a virtual thread found another way).
  void add(JNIEnv* jni, int64_t id, jthread thread);
  // The virtual thread with ID, as a local reference, or nullptr.
  jobject find(JNIEnv* jni, int64_t id);
  // Forgets the ended threads whose requests have all been taken (ticket < TAKEN).
  void purge(JNIEnv* jni, uint64_t taken);
  // Forgets every thread (Disable).
  void clear(JNIEnv* jni);

  int64_t overflow() const { return overflow_.load(std::memory_order_relaxed); }

 private:
  struct Entry {
    jobject ref;  // weak while the thread lives, strong once it ended
    bool ended;
  };
  struct Shard {
    std::mutex mutex;
    std::unordered_map<int64_t, Entry> threads;
    std::deque<std::pair<uint64_t, int64_t>> ended;  // (end ticket, id), in ticket order
  };
  static constexpr size_t kShards = 16;
  Shard& shard(int64_t id) { return shards_[static_cast<uint64_t>(id) % kShards]; }
  jlong id_of(JNIEnv* jni, jthread thread);
  static void release(JNIEnv* jni, const Entry& entry);

  std::array<Shard, kShards> shards_;
  std::atomic<size_t> size_{0};
  std::atomic<int64_t> overflow_{0};
  std::atomic<jfieldID> tid_{nullptr};
};

}  // namespace jvmkit::walk
