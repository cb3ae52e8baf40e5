// SIGNAL CONTEXT (see recovery_capture.hpp and recovery.cpp for what may be called).
#include "stack_walk/signal/x64/recovery_capture.hpp"

#include <cstring>

#include "stack_walk/signal/x64/recovery.hpp"

namespace jvmkit::walk {

JVMKIT_SIGNAL_SAFE jint run_asgct(hotspot::AsgctFunction asgct, JNIEnv* jni, void* ucontext,
                                  hotspot::AsgctFrame* frames, jint depth) noexcept {
  hotspot::AsgctTrace trace{jni, 0, frames};
  asgct(&trace, depth, ucontext);
  return trace.num_frames;
}

JVMKIT_SIGNAL_SAFE jint retry_from(hotspot::AsgctFunction asgct, JNIEnv* jni, const ucontext_t* original,
                                   const Regs& caller, RetryPc how, hotspot::AsgctFrame* frames, jint depth) noexcept {
  ucontext_t copy;
  std::memcpy(&copy, original, sizeof(copy));
  set_regs(&copy, Regs{how == RetryPc::kReturnAddress ? caller.pc - 1 : caller.pc, caller.sp, caller.fp});
  return run_asgct(asgct, jni, &copy, frames, depth);
}

JVMKIT_SIGNAL_SAFE void count_deoptimized_completion(Completeness completed) noexcept {
  RecoveryCounters& rc = recovery_counters();
  rc.attempted.fetch_add(1, std::memory_order_relaxed);
  if (completed == Completeness::kCutShort) {
    rc.unrecovered[JVMKIT_UNRECOVERED_RETRY_FAILED].fetch_add(1, std::memory_order_relaxed);
  } else {
    rc.recovered[JVMKIT_RECOVERY_DEOPTIMIZED].fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace jvmkit::walk
