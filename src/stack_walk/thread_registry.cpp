#include "stack_walk/thread_registry.hpp"

#include <limits>

#include "hotspot/java_thread.hpp"

namespace jvmkit::walk {

namespace {
constexpr uint64_t kOpen = std::numeric_limits<uint64_t>::max();
}  // namespace

bool EnvOffset::learn(JNIEnv* jni) {
  offset_ = hotspot::current_env_offset(jni);
  return offset_.has_value();
}

bool EnvOffset::validate(JNIEnv* jni) {
  if (!offset_) return false;
  std::optional<intptr_t> here = hotspot::current_env_offset(jni);
  if (!here || *here != *offset_) offset_.reset();
  return offset_.has_value();
}

JNIEnv* EnvOffset::env_of(JNIEnv* jni, jthread thread) const {
  if (!offset_) return nullptr;
  jlong eetop = hotspot::java_thread_address(jni, thread);
  if (eetop == 0) return nullptr;
  return reinterpret_cast<JNIEnv*>(static_cast<intptr_t>(eetop) + *offset_);
}

void ThreadRegistry::open() {
  std::lock_guard<std::mutex> lock(mutex_);
  open_ = true;
}

void ThreadRegistry::close(JNIEnv* jni) {
  std::lock_guard<std::mutex> lock(mutex_);
  open_ = false;
  // Without a JNIEnv (dead phase) the references are left to the dying VM.
  if (jni != nullptr) {
    for (auto& [key, list] : entries_) {
      for (Entry& e : list) jni->DeleteGlobalRef(e.thread);
    }
  }
  entries_.clear();
}

void ThreadRegistry::add(JNIEnv* jni, JNIEnv* key, jthread thread, uint64_t start, bool replace) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!open_) return;
  std::vector<Entry>& list = entries_[key];
  for (Entry& e : list) {
    if (e.end != kOpen) continue;
    if (!replace) return;
    // E.g. a rescan registered a thread during its ThreadEnd: that thread is gone now.
    e.end = start;
  }
  jobject global = jni->NewGlobalRef(thread);
  if (global == nullptr) return;
  list.push_back(Entry{global, start, kOpen, false});
}

void ThreadRegistry::end(JNIEnv* key, uint64_t end) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  for (Entry& e : it->second) {
    if (e.end == kOpen) e.end = end;
  }
}

jobject ThreadRegistry::find(JNIEnv* key, uint64_t ticket, bool* rooted) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return nullptr;
  for (const Entry& e : it->second) {
    if (e.start <= ticket && ticket < e.end) {
      if (rooted != nullptr) *rooted = e.rooted;
      return e.thread;
    }
  }
  return nullptr;
}

void ThreadRegistry::mark_rooted(JNIEnv* key, uint64_t ticket) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  for (Entry& e : it->second) {
    if (e.start <= ticket && ticket < e.end) e.rooted = true;
  }
}

void ThreadRegistry::purge(JNIEnv* jni, uint64_t taken) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = entries_.begin(); it != entries_.end();) {
    std::vector<Entry>& list = it->second;
    for (size_t i = 0; i < list.size();) {
      if (list[i].end != kOpen && list[i].end <= taken) {
        jni->DeleteGlobalRef(list[i].thread);
        list[i] = list.back();
        list.pop_back();
      } else {
        i++;
      }
    }
    it = list.empty() ? entries_.erase(it) : std::next(it);
  }
}

int ThreadRegistry::scan(JNIEnv* jni, jvmtiEnv* jvmti, const EnvOffset& offset, uint64_t start) {
  if (!offset.valid()) return 0;
  jint count = 0;
  jthread* threads = nullptr;
  if (jvmti->GetAllThreads(&count, &threads) != JVMTI_ERROR_NONE) return 0;
  int added = 0;
  for (jint i = 0; i < count; i++) {
    JNIEnv* key = offset.env_of(jni, threads[i]);
    if (key != nullptr) {
      add(jni, key, threads[i], start, false);
      added++;
    }
    jni->DeleteLocalRef(threads[i]);
  }
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(threads));
  return added;
}

}  // namespace jvmkit::walk
