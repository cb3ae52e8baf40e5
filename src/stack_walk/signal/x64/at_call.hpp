// The stack of the current thread at a request made without a ucontext (SIGNAL CONTEXT, see
// at_call.cpp).
#pragma once

#include <jni.h>

#include <cstdint>

#include "base/signal_safe.hpp"
#include "hotspot/asgct.hpp"
#include "stack_walk/code_map.hpp"
#include "stack_walk/completeness.hpp"
#include "stack_walk/physical_frame.hpp"
#include "stack_walk/signal/x64/completeness.hpp"

namespace jvmkit::walk {

struct AtCallCapture {
  jint result = 0;     // ASGCT's answer: > 0 frames written, else its code
  bool later = false;  // the thread was running Java code (a signal handler that passed no
                       // ucontext), or its last Java frame was not walkable: nothing was captured,
                       // the request must be served later
  int physical_count = 0;
  Completeness completeness = Completeness::kUnchecked;  // a trace captured here: see completeness.hpp
};

// Captures the current thread's stack as it is at this call, into FRAMES (capacity DEPTH), from
// its last Java frame. PHYSICAL (capacity kMaxPhysicalFrames) receives the physical frames from
// the top, when the code map (CODE_SNAPSHOTS, may be null) knows them. STACK_TOP is the highest
// address of the thread's stack (0: unknown; no stack slot is read then).
JVMKIT_SIGNAL_SAFE AtCallCapture capture_at_call(hotspot::AsgctFunction asgct, JNIEnv* jni, hotspot::AsgctFrame* frames,
                                                 jint depth, const CodeSnapshotCell* code_snapshots,
                                                 uintptr_t stack_top, PhysicalFrame* physical) noexcept;

// The current thread's Java frames from its frame anchor, made walkable as HotSpot makes it (a PC
// of 0 is the word below the anchor's SP), for a thread inside the VM whose interrupted sample
// AsyncGetCallTrace refused (-3, -4). A set anchor is this moment's: HotSpot clears it before
// any Java frame above it runs (recovery.cpp, walk_from_anchor, says why). Used by the capture's
// recovery and, for mixed stacks, after the native unwinder joined the anchor's frame.
JVMKIT_SIGNAL_SAFE AtCallCapture capture_at_anchor(JNIEnv* jni, hotspot::AsgctFrame* frames, jint depth,
                                                   const CodeSnapshot& code, uintptr_t stack_top,
                                                   PhysicalFrame* physical, EntriesOut* entries) noexcept;

// The stack from TOP, a Java frame standing at a call that HotSpot itself recorded (the thread's
// last Java frame, the compiled caller of the runtime stub it is in, or the first Java frame below
// an entry frame, from its JavaCallWrapper's saved anchor), walked frame by frame across entry
// frames as HotSpot walks them, into FRAMES (capacity DEPTH). Physical frames go to PHYSICAL
// (capacity PHYSICAL_MAX) as the capture's walk records them, their count to *PHYSICAL_COUNT; the
// entry frames crossed are added to ENTRIES (may be null), their trace index OFFSET more than in
// FRAMES. Returns the frames written (> 0), or ASGCT's code for a frame it could not walk; sets
// *COMPLETENESS: kProven when the walk reached the thread's first entry into Java.
JVMKIT_SIGNAL_SAFE jint walk_below_stub(const CodeSnapshot& code, Regs top, uintptr_t stack_top,
                                        hotspot::AsgctFrame* frames, jint depth, PhysicalFrame* physical,
                                        int physical_max, int* physical_count, Completeness* completeness,
                                        EntriesOut* entries, jint offset) noexcept;

// A whole trace of *N frames (FRAMES, capacity DEPTH) that the proof found cut short at an entry frame
// (WALKED->resumable, see PhysicalOut): the Java frames below that entry are walked from its saved
// anchor and appended, *N and WALKED's physical frames grow. Returns the completeness of the
// whole trace, kCutShort when the frames below could not be walked.
JVMKIT_SIGNAL_SAFE Completeness complete_below_entry(const CodeSnapshot& code, uintptr_t stack_top,
                                                     hotspot::AsgctFrame* frames, jint* n, jint depth,
                                                     PhysicalOut* walked) noexcept;

}  // namespace jvmkit::walk
