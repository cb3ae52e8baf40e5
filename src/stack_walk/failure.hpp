// Brings the public failure/reject enums into the implementation, and reports failures to the
// agent's callback with their reason readable through JvmkitCurrentFailureReason.
#pragma once

#include <jvmkit/stack_walk.h>

namespace jvmkit::walk {

// Calls callbacks.failure(thread, user_data); while it runs, current_failure_reason() on this
// thread returns `reason`. Does not count the failure (the caller does, after the callback).
void report_failure(const jvmtiStackTraceCallbacks& callbacks, jthread thread, void* user_data,
                    jvmkitFailureReason reason);

// The reason of the failure callback running on this thread, JVMKIT_FAILURE_REASON_COUNT outside one.
jvmkitFailureReason current_failure_reason() noexcept;

}  // namespace jvmkit::walk
