#include "profiler/recording/sample_owner.hpp"

#include <jvmkit/stack_walk.h>

#include <string>

namespace jvmkit::prof {

SampleOwner current_sample_owner(JNIEnv* jni, jthread thread, pid_t tid) {
  SampleOwner owner;
  owner.tid = tid;
  owner.thread = thread;
  owner.virtual_id = JvmkitCurrentVirtualThreadId();
  if (owner.virtual_id != 0) {
    owner.carrier = JvmkitCurrentCarrierThread();
    // The library reports the carrier in the virtual thread's place when it could not find it.
    owner.virtual_named = thread != nullptr && jni != nullptr && !jni->IsSameObject(thread, owner.carrier);
  }
  return owner;
}

std::string thread_root_name(const SampleOwner& owner, ThreadGrouping grouping, const std::string& name) {
  const bool as_virtual = owner.virtual_id != 0 && grouping != ThreadGrouping::kCarrier;
  const std::string shown = !name.empty() ? name : (as_virtual ? "virtual" : "?");
  if (as_virtual) return "[" + shown + " vtid=" + std::to_string(owner.virtual_id) + "]";
  return "[" + shown + " tid=" + std::to_string(owner.tid) + "]";
}

}  // namespace jvmkit::prof
