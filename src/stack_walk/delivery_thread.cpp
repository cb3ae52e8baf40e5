#include "stack_walk/delivery_thread.hpp"

#include <jvmkit/stack_walk.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "stack_walk/signal/capture.hpp"

namespace jvmkit::walk {

namespace {

constexpr int64_t kIdleWaitNs = 100'000'000;
// While requests keep coming, the delivery thread naps, starting at kFirstNapNs and doubling up to
// kLongestNapNs; after kQuietNs without a request it waits on the wake event again.
constexpr int64_t kFirstNapNs = 1'000'000;
constexpr int64_t kLongestNapNs = 16'000'000;
constexpr int64_t kQuietNs = 100'000'000;

}  // namespace

void DeliveryThread::reset() {
  stop_.store(false);
  std::lock_guard<std::mutex> lock(mutex_);
  state_ = State::kNotStarted;
}

jvmtiError DeliveryThread::start(JNIEnv* jni, RequestPool* pool) {
  pool_ = pool;
  jclass thread_class = jni->FindClass("java/lang/Thread");
  jmethodID ctor = thread_class ? jni->GetMethodID(thread_class, "<init>", "(Ljava/lang/String;)V") : nullptr;
  jstring name = ctor ? jni->NewStringUTF(JVMKIT_WALK_THREAD_NAME) : nullptr;
  jobject thread = name ? jni->NewObject(thread_class, ctor, name) : nullptr;
  jvmtiError err = JVMTI_ERROR_INTERNAL;
  if (thread != nullptr) {
    err = env_.get()->RunAgentThread(thread, thread_main, this, JVMTI_THREAD_NORM_PRIORITY);
  } else {
    jni->ExceptionClear();
  }
  if (err == JVMTI_ERROR_NONE) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return state_ != State::kNotStarted; });
  } else {
    std::fprintf(stderr, "jvmkit: could not start the stack walker thread (JVMTI error %d)\n", err);
  }
  if (thread_class) jni->DeleteLocalRef(thread_class);
  if (name) jni->DeleteLocalRef(name);
  if (thread) jni->DeleteLocalRef(thread);
  return err;
}

void DeliveryThread::finish(RequestPool& pool) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (state_ == State::kRunning) {
    stop_.store(true, std::memory_order_seq_cst);
    pool.wake().notify();
    pool.wake().urge();
    changed_.wait(lock, [this] { return state_ == State::kExited; });
  } else {
    lock.unlock();
    drain_without_thread(pool);
  }
}

void DeliveryThread::set_state(State state) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    state_ = state;
  }
  changed_.notify_all();
}

void JNICALL DeliveryThread::thread_main(jvmtiEnv*, JNIEnv* jni, void* arg) {
  static_cast<DeliveryThread*>(arg)->loop(jni);
}

void DeliveryThread::loop(JNIEnv* jni) {
  // A second thread checks the JNIEnv offset learnt on the enabling thread before threads that
  // existed before Enable are registered through it.
  if (env_offset_.validate(jni)) {
    threads_.scan(jni, env_.get(), env_offset_, 0);
  } else {
    std::fprintf(stderr,
                 "jvmkit: Thread.eetop check failed; threads started before EnableRequestStackTrace "
                 "are not identified (their traces fail with thread_ended)\n");
  }
  RequestPool& pool = *pool_;
  deliverer_.prepare(jni, pool.max_frames());
  set_state(State::kRunning);

  // While requests keep coming, the thread naps instead of waiting on the wake event: a capture
  // then finds no waiter and makes no futex syscall (most of the capture's cost beyond ASGCT at
  // kHz rates). The nap doubles up to kLongestNapNs, so a steady trickle of requests (one thread
  // at 100 Hz) costs ~60 wake-ups a second, not one per request or per millisecond; a backlog of a
  // quarter of the pool cuts a nap short (RequestPool::publish), so fast bursts are not dropped.
  int64_t nap_ns = 0;  // 0: waiting on the wake event
  int64_t quiet_ns = 0;
  for (;;) {
    uint32_t token = pool.wake().prepare();
    bool any = false;
    uint32_t index = 0;
    uint64_t ticket = 0;
    while (pool.take(&index, &ticket)) {
      deliverer_.deliver(jni, pool.at(index), ticket);
      pool.release(index);
      any = true;
    }
    if (any) {
      threads_.purge(jni, pool.taken());
      virtual_threads_.purge(jni, pool.taken());
    }
    if (!any) code_map_.reclaim();
    if (stop_.load(std::memory_order_seq_cst)) {
      // Disable closed the gate and waited for callers to leave before setting stop_: nothing
      // more can be published, so equal positions mean every request has had its outcome.
      if (pool.published() == pool.taken()) break;
      continue;
    }
    if (any) quiet_ns = 0;
    if (!any && nap_ns != 0) quiet_ns += nap_ns;
    if (!any && (nap_ns == 0 || quiet_ns >= kQuietNs)) {
      nap_ns = 0;
      pool.wake().wait(token, kIdleWaitNs);
      continue;
    }
    nap_ns = nap_ns == 0 ? kFirstNapNs : std::min(2 * nap_ns, kLongestNapNs);
    pool.wake().nap(nap_ns, [&] { return pool.backlog_is_urgent() || stop_.load(std::memory_order_seq_cst); });
  }

  deliverer_.reset(jni);
  set_state(State::kExited);
}

void DeliveryThread::drain_without_thread(RequestPool& pool) {
  JNIEnv* jni = current_jni(capture_state().vm.load());
  uint32_t index = 0;
  uint64_t ticket = 0;
  while (pool.take(&index, &ticket)) {
    deliverer_.fail_disabled(jni, pool.at(index));
    pool.release(index);
  }
}

}  // namespace jvmkit::walk
