// Which java.lang.Thread a captured request came from.
//
// The handler can read only the sampled thread's JNIEnv*, so requests carry that. The registry maps
// it back to a global reference of the Thread object. Entries come from two sources:
//   - ThreadStart (threads started after Enable), on the thread itself: its JNIEnv is given.
//   - A scan of GetAllThreads (threads that existed before Enable, and later look-up misses):
//     java.lang.Thread.eetop holds the JavaThread*, and the JNIEnv lives at a fixed offset inside
//     it. The offset is learnt from one thread whose both values are known and checked on a second
//     one before use (see EnvOffset); if the check fails, only ThreadStart registers threads.
//
// A JNIEnv address is reused when a JavaThread is freed and another allocated in its place, so an
// entry is valid for a range of request tickets (positions in publication order, see
// RequestPool): from the ticket current at its registration to the ticket current at ThreadEnd.
// Every request of a thread is published before its ThreadEnd runs (same thread, program order), so
// a request finds the entry of the thread that made it. Ended entries are dropped once the delivery
// thread has taken every ticket below their end.
//
// Not signal context: used by JVMTI event callbacks and the delivery thread, under a mutex.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

namespace jvmkit::walk {

// The offset of a thread's JNIEnv inside its JavaThread (whose address is Thread.eetop), learnt
// with hotspot::current_env_offset. Kept apart from the checked JavaThreadLayout: the registry
// needs only this offset, and still works on a JVM whose other layout fields fail their checks.
class EnvOffset {
 public:
  // Learns the offset from the current thread. Returns false if eetop is missing or implausible.
  bool learn(JNIEnv* jni);
  // Checks the learnt offset on the current thread (a different one). Returns whether it holds;
  // a failed check clears the offset.
  bool validate(JNIEnv* jni);
  bool valid() const { return offset_.has_value(); }
  // The JNIEnv of a live THREAD, or nullptr (thread ended, offset unknown).
  JNIEnv* env_of(JNIEnv* jni, jthread thread) const;
  void reset() { offset_.reset(); }

 private:
  std::optional<intptr_t> offset_;
};

class ThreadRegistry {
 public:
  // Starts accepting entries (Enable) / drops them all and refuses new ones (Disable).
  void open();
  void close(JNIEnv* jni);

  // Registers THREAD (a local or global ref, copied into a new global ref) for requests whose
  // ticket is >= start. From ThreadStart (replace = true) the new thread is certain to own key
  // now: any open entry for key belonged to an earlier thread and is ended at start. From a scan
  // (replace = false) an existing open entry wins.
  void add(JNIEnv* jni, JNIEnv* key, jthread thread, uint64_t start, bool replace);
  // The thread with JNIEnv key has ended; requests published from now on are not its.
  void end(JNIEnv* key, uint64_t end);
  // The thread that made the request with this key and ticket, as a global ref owned by the
  // registry (valid until purge() drops it, which never happens before the ticket is taken), or
  // nullptr. ROOTED, when given, receives whether mark_rooted was called for that thread.
  jobject find(JNIEnv* key, uint64_t ticket, bool* rooted = nullptr);
  // Records that a trace of that thread reached the bottom frame of a thread started from Java
  // (see thread_roots.hpp): from then on its traces must reach such a frame.
  void mark_rooted(JNIEnv* key, uint64_t ticket);
  // Deletes the entries of ended threads whose requests have all been taken (ticket < taken).
  void purge(JNIEnv* jni, uint64_t taken);
  // Registers every live thread through OFFSET. Returns how many were added.
  int scan(JNIEnv* jni, jvmtiEnv* jvmti, const EnvOffset& offset, uint64_t start);

 private:
  struct Entry {
    jobject thread;  // global ref
    uint64_t start;
    uint64_t end;
    bool rooted;
  };
  std::mutex mutex_;
  bool open_ = false;
  std::unordered_map<JNIEnv*, std::vector<Entry>> entries_;
};

}  // namespace jvmkit::walk
