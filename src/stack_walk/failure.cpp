#include "stack_walk/failure.hpp"

namespace jvmkit::walk {
namespace {
// Thread-local: failures are reported on the delivery thread, or on the thread that disables
// before the delivery thread ever ran; a callback that itself triggers a report (it may call
// Disable) restores the outer reason when the inner one returns.
thread_local jvmkitFailureReason t_current_reason = JVMKIT_FAILURE_REASON_COUNT;
}  // namespace

void report_failure(const jvmtiStackTraceCallbacks& callbacks, jthread thread, void* user_data,
                    jvmkitFailureReason reason) {
  const jvmkitFailureReason outer = t_current_reason;
  t_current_reason = reason;
  callbacks.failure(thread, user_data);
  t_current_reason = outer;
}

jvmkitFailureReason current_failure_reason() noexcept { return t_current_reason; }

}  // namespace jvmkit::walk
