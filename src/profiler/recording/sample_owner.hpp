// Whose sample a delivered trace is: the Java thread that ran the code (a mounted virtual thread,
// when one was), and the OS thread it ran on (that virtual thread's carrier). The `threads=` option
// groups by one or the other (ThreadGrouping), and JFR names the former, as the JDK's own
// recordings do.
//
// Only inside the stack-trace callbacks, on the delivery thread (it asks the stack-walk library's
// JvmkitCurrentVirtualThreadId and JvmkitCurrentCarrierThread about the trace being delivered).
#pragma once

#include <jvmti.h>
#include <sys/types.h>

#include <cstdint>
#include <string>

#include "profiler/options.hpp"
#include "profiler/recording/thread_root_name.hpp"

namespace jvmkit::prof {

struct SampleOwner {
  pid_t tid = 0;               // the OS thread the sample was taken on
  int64_t virtual_id = 0;      // Thread.threadId() of the virtual thread it ran, 0 for a platform thread
  jthread thread = nullptr;    // beginStackTrace's thread: the virtual thread, when the library found it
  jthread carrier = nullptr;   // a virtual thread's carrier; nullptr for a platform thread
  bool virtual_named = false;  // THREAD is the virtual thread itself (not its carrier, as a stand-in)

  // The key of the group the sample falls in: the virtual thread (negative ids, apart from OS tids)
  // or the OS thread.
  int64_t key(ThreadGrouping grouping) const {
    return virtual_id != 0 && grouping != ThreadGrouping::kCarrier ? -virtual_id : tid;
  }
  // The thread whose name a group takes (may be nullptr: one of the JVM's own threads).
  jthread named_thread(ThreadGrouping grouping) const {
    if (virtual_id == 0) return thread;
    if (grouping == ThreadGrouping::kCarrier) return carrier;
    return virtual_named ? thread : nullptr;
  }
};

// The owner of the trace being delivered: THREAD and TID as the callbacks got them.
SampleOwner current_sample_owner(JNIEnv* jni, jthread thread, pid_t tid);

// The root frame that names a group: "[NAME tid=N]" for an OS thread, "[NAME vtid=N]" for a
// virtual thread (NAME "virtual" when it has none, or could not be found).
std::string thread_root_name(const SampleOwner& owner, ThreadGrouping grouping, const std::string& name);

}  // namespace jvmkit::prof
