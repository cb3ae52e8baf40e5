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
// AsyncGetCallTrace refused. Only when the caller has checked that the anchor is this moment's:
// the native unwinder reached the code cache at the anchor's frame (native_capture.cpp).
JVMKIT_SIGNAL_SAFE AtCallCapture capture_at_anchor(JNIEnv* jni, hotspot::AsgctFrame* frames, jint depth,
                                                   const CodeSnapshot& code, uintptr_t stack_top,
                                                   PhysicalFrame* physical, EntriesOut* entries) noexcept;

}  // namespace jvmkit::walk
