// Brings the public failure/reject enums into the implementation, and reports failures to the
// agent's callback with their reason readable through JvmkitCurrentFailureReason.
#pragma once

#include <jvmkit/stack_walk.h>

#include "hotspot/asgct.hpp"

namespace jvmkit::walk {

// Calls callbacks.failure(thread, user_data); while it runs, current_failure_reason() on this
// thread returns `reason`. Does not count the failure (the caller does, after the callback).
void report_failure(const jvmtiStackTraceCallbacks& callbacks, jthread thread, void* user_data,
                    jvmkitFailureReason reason);

// The reason of the failure callback running on this thread, JVMKIT_FAILURE_REASON_COUNT outside one.
jvmkitFailureReason current_failure_reason() noexcept;

// Maps ASGCT's answer onto jvmkit's failure reasons.
inline jvmkitFailureReason failure_from_asgct(jint code) {
  namespace asgct = hotspot::asgct;
  switch (code) {
    case asgct::kNoJavaFrame:
    case asgct::kUnknownNotJava:
    case asgct::kNotWalkableNotJava:
      return JVMKIT_FAILURE_NO_JAVA_FRAMES;
    case asgct::kGcActive:
      return JVMKIT_FAILURE_GC_ACTIVE;
    case asgct::kUnknownJava:
    case asgct::kNotWalkableJava:
    case asgct::kUnknownState:
    case asgct::kSafepoint:
      return JVMKIT_FAILURE_NOT_WALKABLE;
    case asgct::kThreadExit:
      return JVMKIT_FAILURE_THREAD_ENDED;
    case asgct::kDeopt:
      return JVMKIT_FAILURE_DEOPTIMIZING;
    default:  // kNoClassLoad (jvmkit enables ClassLoad) and anything new
      return JVMKIT_FAILURE_OTHER;
  }
}

}  // namespace jvmkit::walk
