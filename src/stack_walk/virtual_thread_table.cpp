#include "stack_walk/virtual_thread_table.hpp"

namespace jvmkit::walk {

jlong VirtualThreadTable::id_of(JNIEnv* jni, jthread thread) {
  jfieldID tid = tid_.load(std::memory_order_acquire);
  if (tid == nullptr) {
    // java.lang.Thread is never unloaded: its field ID stays valid; a race looks it up twice.
    jclass thread_class = jni->FindClass("java/lang/Thread");
    tid = thread_class != nullptr ? jni->GetFieldID(thread_class, "tid", "J") : nullptr;
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    if (thread_class != nullptr) jni->DeleteLocalRef(thread_class);
    if (tid == nullptr) return 0;
    tid_.store(tid, std::memory_order_release);
  }
  return jni->GetLongField(thread, tid);
}

void VirtualThreadTable::started(JNIEnv* jni, jthread thread) {
  if (thread == nullptr) return;
  add(jni, id_of(jni, thread), thread);
}

void VirtualThreadTable::add(JNIEnv* jni, int64_t id, jthread thread) {
  if (id == 0 || thread == nullptr) return;
  if (size_.load(std::memory_order_relaxed) >= kMaxThreads) {
    overflow_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  jweak weak = jni->NewWeakGlobalRef(thread);
  if (weak == nullptr) return;
  Shard& s = shard(id);
  std::lock_guard<std::mutex> lock(s.mutex);
  auto [it, added] = s.threads.try_emplace(id, Entry{weak, false});
  if (added) {
    size_.fetch_add(1, std::memory_order_relaxed);
  } else {
    jni->DeleteWeakGlobalRef(weak);  // known already (a start after it was found another way)
  }
}

void VirtualThreadTable::release(JNIEnv* jni, const Entry& entry) {
  if (entry.ended) {
    jni->DeleteGlobalRef(entry.ref);
  } else {
    jni->DeleteWeakGlobalRef(entry.ref);
  }
}

void VirtualThreadTable::ended(JNIEnv* jni, jthread thread, uint64_t end) {
  if (thread == nullptr) return;
  const int64_t id = id_of(jni, thread);
  // Held strongly from now on: the thread object must outlive the traces still to be delivered.
  jobject strong = jni->NewGlobalRef(thread);
  Shard& s = shard(id);
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.threads.find(id);
  if (it == s.threads.end() || it->second.ended || strong == nullptr) {
    if (strong != nullptr) jni->DeleteGlobalRef(strong);
    return;
  }
  jni->DeleteWeakGlobalRef(it->second.ref);
  it->second = Entry{strong, true};
  s.ended.emplace_back(end, id);
}

jobject VirtualThreadTable::find(JNIEnv* jni, int64_t id) {
  Shard& s = shard(id);
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.threads.find(id);
  return it == s.threads.end() ? nullptr : jni->NewLocalRef(it->second.ref);
}

void VirtualThreadTable::purge(JNIEnv* jni, uint64_t taken) {
  for (Shard& s : shards_) {
    std::lock_guard<std::mutex> lock(s.mutex);
    while (!s.ended.empty() && s.ended.front().first < taken) {
      if (auto it = s.threads.find(s.ended.front().second); it != s.threads.end()) {
        release(jni, it->second);
        s.threads.erase(it);
        size_.fetch_sub(1, std::memory_order_relaxed);
      }
      s.ended.pop_front();
    }
  }
}

void VirtualThreadTable::clear(JNIEnv* jni) {
  for (Shard& s : shards_) {
    std::lock_guard<std::mutex> lock(s.mutex);
    for (auto& [id, entry] : s.threads) release(jni, entry);
    size_.fetch_sub(s.threads.size(), std::memory_order_relaxed);
    s.threads.clear();
    s.ended.clear();
  }
}

}  // namespace jvmkit::walk
