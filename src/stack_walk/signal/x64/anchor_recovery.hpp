// Step 3c of the recovery (SIGNAL CONTEXT, see recovery.cpp): a Java thread inside the VM, walked
// from its frame anchor.
#pragma once

#include <jni.h>

#include <optional>

#include "base/signal_safe.hpp"
#include "stack_walk/signal/x64/recovery_capture.hpp"

namespace jvmkit::walk {

// Step 3c. A Java thread inside the VM: the allocation slow path, class resolution and linking,
// a C1 or C2 runtime call, a safepoint or lock wait. ASGCT answers -3 or -4 there: HotSpot leaves
// the frame anchor's PC for later (the interpreter's and the stubs' calls into the VM store only
// its SP and FP) or refuses the stub's frame as a sender. The anchor is this moment's whenever its
// SP is set: HotSpot sets the SP last when it enters the VM, clears it first when it returns to
// Java, and saves and clears it in the JavaCallWrapper before it calls Java again, so Java frames
// above a set anchor never run. Its PC is the word below its SP (HotSpot's own rule when it makes
// the anchor walkable). The Java frames are walked from there (at_call.hpp), across entry frames
// to the thread's first entry into Java, which proves the trace whole.
// ASGCT also refuses every thread while a collector's pause runs (-2). A Java thread then waits,
// outside Java code, with its anchor set; its frames stay as they are, and the walk reads only
// them and the methods' metadata, which a collector does not move (the classes of methods on a
// stack are alive).
// A thread whose state still says Java (-5, -6) while its PC lies outside the code cache and its
// anchor is set has entered the VM and not yet switched its state (HotSpot's runtime entries do
// that first thing, in the VM function the stub called), or has switched it back and not yet
// returned: compiled code itself runs with the anchor cleared, so the anchor is this moment's.
// ASGCT refuses a thread deoptimizing a frame (-9) too; while the deoptimization blob fetches how
// to unroll it, that frame is still whole above the blob's (frame_being_deoptimized).
// Returns the trace's frames or the failure, nullopt when the sample is not such a case.
JVMKIT_SIGNAL_SAFE std::optional<jint> walk_from_anchor(const Capture& c, jint first) noexcept;

}  // namespace jvmkit::walk
