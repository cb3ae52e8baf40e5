// SIGNAL CONTEXT. The frozen frames of the continuation the current thread runs (a mounted virtual
// thread): the frames HotSpot has not thawed back onto the stack yet, read from the continuation's
// stack chunks in the heap (hotspot/continuation_layout.hpp says where, and when that is safe).
//
// AsyncGetCallTrace walks the thawed frames, then goes from their return barrier straight to
// Continuation.enterSpecial. insert_frozen_frames puts the frozen frames in between, so that the
// trace is the virtual thread's whole stack down to Continuation.enter, its first frame.
//
// A chunk holds the frames as they were on the stack (x86-64, HotSpot's
// stackChunkFrameStream_x86): a frame's PC is the word below its SP; a compiled frame is as large
// as its code's frame; an interpreter frame keeps its rbp, its sender's SP and its locals as
// offsets (in words) from where they are stored, its Method* and bytecode pointer as they are.
// Only frames at calls are frozen behind thawed ones: each compiled frame is described by its call
// site's record, as at_call.cpp does on the stack.
//
// May call: CodeSnapshot::find, CallSites::find, the MethodLayout and ContinuationLayout readers,
// and plain loads of words inside a chunk object (whose bounds the chunk's own fields give).
#pragma once

#include <jni.h>

#include "base/signal_safe.hpp"
#include "hotspot/asgct.hpp"
#include "hotspot/continuation_layout.hpp"
#include "hotspot/method_layout.hpp"
#include "stack_walk/code_map.hpp"

namespace jvmkit::walk {

struct FrozenFrames {
  hotspot::AsgctFrame* frames;  // ROOM slots
  int room;
  int count = 0;       // frames written
  bool whole = false;  // every chunk was walked to its end, and every frame fitted
};

// Walks the frames of CHUNK and of its parents, youngest first, into OUT.
JVMKIT_SIGNAL_SAFE void walk_frozen_frames(const CodeSnapshot& code, const hotspot::ContinuationLayout& layout,
                                           const hotspot::MethodLayout& methods, uintptr_t chunk,
                                           FrozenFrames* out) noexcept;

// The Java methods a trace of a mounted virtual thread is cut at (learnt by the delivery thread).
struct ContinuationMethods {
  jmethodID enter_special;  // Continuation.enterSpecial: the entry frame
  jmethodID enter;          // Continuation.enter: the continuation's first frame, above the entry
};

// Puts the frozen frames into the trace FRAMES[0..*COUNT) (room for DEPTH) of the current thread
// (ENV's), interrupted at PC, when it runs a mounted continuation whose frames the walk lacks: the
// frame above enterSpecial is not Continuation.enter. They go above enterSpecial; the frames from
// enterSpecial on follow them as long as there is room (else *COUNT becomes DEPTH: truncated).
// Their frame types are left to the delivery's fallback (the capture's physical walk ends at the
// return barrier). Returns the number of frames inserted (0: nothing to do, or not readable).
JVMKIT_SIGNAL_SAFE int insert_frozen_frames(const CodeSnapshot& code, const ContinuationMethods& methods, JNIEnv* env,
                                            uintptr_t pc, hotspot::AsgctFrame* frames, jint* count,
                                            jint depth) noexcept;

}  // namespace jvmkit::walk
