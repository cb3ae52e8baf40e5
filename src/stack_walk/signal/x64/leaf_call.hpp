// SIGNAL CONTEXT. Samples taken inside a native leaf call of compiled Java code.
//
// C2 calls some VM functions as leaf calls: no frame anchor, the thread stays "in Java" (the
// System.nanoTime and currentTimeMillis intrinsics call os::javaTimeNanos/Millis in libjvm, which
// call clock_gettime in libc and the vDSO). A sample there has its PC outside the code cache.
// AsyncGetCallTrace then follows the frame-pointer chain to the compiled caller and describes it
// as it describes an interrupted PC: by the first debug record *after* the PC (HotSpot's
// pc_desc_near(pc + 1)). For a return address that is the record of the code after the call:
// another bytecode, or another method where the call ends an inlined method's code (the next
// method laid out after it). The call's own record sits at the return address; async-profiler's
// walker takes it (an exact match first). jvmkit finds the caller the same way and runs
// AsyncGetCallTrace from the call instruction's last byte, whose "next record" is the call's.
#pragma once

#include "base/signal_safe.hpp"
#include "stack_walk/code_map.hpp"
#include "stack_walk/signal/x64/frame.hpp"

namespace jvmkit::walk {

// Native frames (libjvm, libc) between the interrupted PC and the compiled caller, at most.
constexpr int kMaxLeafFrames = 8;

struct LeafCaller {
  Regs regs;               // the caller's frame: PC = the return address of the leaf call
  const CodeRange* range;  // its nmethod
};

// The compiled frame that made the leaf call the thread is in, found as AsyncGetCallTrace finds
// it (the rbp chain: return address at [rbp + 8], caller's SP rbp + 16, its rbp at [rbp]),
// through at most kMaxLeafFrames native frames. Accepted only when the return address lies in an
// nmethod of CODE right after a call instruction and every slot read lies in BOUNDS, each frame
// above the last. AT: the interrupted registers, its PC outside the code cache.
JVMKIT_SIGNAL_SAFE bool leaf_call_caller(const CodeSnapshot& code, const StackBounds& bounds, const Regs& at,
                                         LeafCaller* out) noexcept;

// The PC AsyncGetCallTrace is given for a compiled frame at return address RET, so that it
// describes the frame by the call's own record: the call instruction's last byte.
JVMKIT_SIGNAL_SAFE inline uintptr_t asgct_pc_for_return_address(uintptr_t ret) noexcept { return ret - 1; }

}  // namespace jvmkit::walk
