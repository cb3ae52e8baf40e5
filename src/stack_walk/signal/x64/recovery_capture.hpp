// The context one capture's recovery steps share (SIGNAL CONTEXT, see recovery.cpp): what ASGCT
// is run with, the interrupted registers, the code snapshot and where the stack may be read.
#pragma once

#include <jni.h>
#include <ucontext.h>

#include <algorithm>
#include <cstdint>

#include "base/debug_check.hpp"
#include "base/signal_safe.hpp"
#include "hotspot/asgct.hpp"
#include "stack_walk/code_snapshot.hpp"
#include "stack_walk/completeness.hpp"
#include "stack_walk/physical_frame.hpp"
#include "stack_walk/signal/x64/at_call.hpp"
#include "stack_walk/signal/x64/completeness.hpp"
#include "stack_walk/signal/x64/frame.hpp"
#include "stack_walk/signal/x64/physical_walk.hpp"

namespace jvmkit::walk {

// How far above the interrupted SP the unwinder reads the stack. Stub and leaf runtime frames
// are small; a Java thread always has more than this of frames (and its pthread block) above.
constexpr uintptr_t kMaxStackReach = 16 * 1024;

// SIGNAL SAFE. ASGCT into FRAMES (capacity DEPTH) for UCONTEXT; its answer.
JVMKIT_SIGNAL_SAFE jint run_asgct(hotspot::AsgctFunction asgct, JNIEnv* jni, void* ucontext,
                                  hotspot::AsgctFrame* frames, jint depth) noexcept;

// How ASGCT should see a PC the retry starts from.
enum class RetryPc {
  kExact,          // an interrupted PC (another signal handler's context), or a return into the interpreter
  kReturnAddress,  // a return address in compiled code: shown as the call instruction's last byte
};

// SIGNAL SAFE. ASGCT again, from a copy of ORIGINAL whose registers are CALLER's.
// ASGCT describes a compiled PC by the first debug record *after* it (HotSpot's records mark the
// end of the region they describe), so from a return address it would answer with the code that
// follows the call: the bci after it, and none of the methods inlined at the call if the call
// ends their region. From the call instruction's last byte it finds the record of the call itself.
JVMKIT_SIGNAL_SAFE jint retry_from(hotspot::AsgctFunction asgct, JNIEnv* jni, const ucontext_t* original,
                                   const Regs& caller, RetryPc how, hotspot::AsgctFrame* frames, jint depth) noexcept;

// SIGNAL SAFE. Counts a trace AsyncGetCallTrace stopped right above a frame being deoptimized,
// completed below it (JVMKIT_RECOVERY_DEOPTIMIZED) or not.
JVMKIT_SIGNAL_SAFE void count_deoptimized_completion(Completeness completed) noexcept;

// One capture. Filled once by capture_with_recovery; the steps only read it (and write the frames
// and the physical frames).
struct Capture {
  hotspot::AsgctFunction asgct;
  JNIEnv* jni;
  const ucontext_t* uc;
  hotspot::AsgctFrame* frames;
  jint depth;
  const CodeSnapshot* code;  // nullptr: no code map yet (ASGCT's answer stands)
  const CodeRange* range;    // the range of the interrupted PC, or nullptr
  Regs at;                   // the interrupted registers
  uintptr_t stack_top;       // 0: unknown (no stack slot is read)
  PhysicalFrame* physical;
  int* physical_count;
  Completeness* completeness;
  EntriesOut* entries;  // the proof's entry frames, or nullptr

  JVMKIT_SIGNAL_SAFE bool stack_known() const noexcept { return stack_top > at.sp; }
  JVMKIT_SIGNAL_SAFE StackBounds bounds() const noexcept {
    return StackBounds{at.sp, std::min(at.sp + kMaxStackReach, stack_top)};
  }
  JVMKIT_SIGNAL_SAFE jint retry(const Regs& from, RetryPc how, int skip) const noexcept {
    JVMKIT_DCHECK(skip >= 0 && skip < depth);  // ASGCT gets room for at least one frame
    return retry_from(asgct, jni, uc, from, how, frames + skip, depth - skip);
  }
  // The physical frames from FROM, after those ALREADY recorded, and the proof that the trace of
  // *N frames, whose frame at FROM is the first walked, is complete (not for a truncated one). A
  // trace the proof found cut short at an entry frame gets the frames below it (*N grows).
  JVMKIT_SIGNAL_SAFE int walk(const Regs& from, int already, jint* n) const noexcept {
    JVMKIT_DCHECK(already >= 0 && already <= kMaxPhysicalFrames);
    if (*n < depth) {
      PhysicalOut walked{physical + already, kMaxPhysicalFrames - already, 0, entries, already};
      *completeness = prove_complete(*code, from, stack_top, frames + already, *n - already, &walked);
      if (*completeness == Completeness::kCutShort && walked.resumable) {
        *completeness = complete_below_entry(*code, stack_top, frames, n, depth, &walked);
        if (walked.resume_deoptimized) count_deoptimized_completion(*completeness);
      }
      if (*completeness != Completeness::kUnchecked) return walked.count;  // the proof's walk was this one
    }
    return walk_physical(*code, from, stack_top, physical + already, kMaxPhysicalFrames - already);
  }
};

}  // namespace jvmkit::walk
