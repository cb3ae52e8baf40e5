// The capture's proof that AsyncGetCallTrace's trace is the thread's whole stack (SIGNAL CONTEXT,
// see completeness.cpp).
#pragma once

#include <jni.h>

#include <cstdint>
#include <string>

#include "base/signal_safe.hpp"
#include "hotspot/asgct.hpp"
#include "stack_walk/code_map.hpp"
#include "stack_walk/completeness.hpp"
#include "stack_walk/physical_frame.hpp"
#include "stack_walk/signal/x64/frame.hpp"

namespace jvmkit::walk {

// Whether FRAMES[0..N) (AsyncGetCallTrace's trace, N > 0, not truncated) is the whole stack of the
// current thread, whose top physical Java frame TOP is the one the trace starts with (the
// interrupted frame, the caller a recovery retried from, or the thread's last Java frame). Walks
// from TOP down to the thread's first entry into Java, within [TOP.sp, STACK_TOP), and compares
// the methods of every frame below TOP, and TOP's own method, with the trace's.
//
// PHYSICAL (may be null) receives the physical frames the walk passed, from TOP on (for frame
// types): the proof's walk is the capture's physical walk too.
// ENTRIES (may be null) receives the entry frames the walk crossed, from the top (for native
// frames between Java frames: jvmkit/stack_walk_native.h).
struct EntryFrame {
  Regs stub;        // the call stub's frame: PC its return address into the stub, FP its rbp
  Regs below;       // the first Java frame below it (not with first)
  jint next_frame;  // the trace's index of the first Java frame below it (the trace's length: first)
  bool first;       // the thread's first entry into Java
};
constexpr int kMaxEntryFrames = 16;
struct EntriesOut {
  EntryFrame frames[kMaxEntryFrames];
  int count = 0;
  bool overflow = false;  // more entries than frames holds
};
struct PhysicalOut {
  PhysicalFrame* frames;
  int max;
  int count = 0;
  EntriesOut* entries = nullptr;
  jint offset = 0;  // the index in the whole trace of the trace's first frame the walk compares
  // Set with a kCutShort verdict when the trace ended exactly at an entry frame (a call from the
  // VM back into Java) and the walk found Java frames below it: RESUME is the first of them, read
  // from the JavaCallWrapper's saved frame anchor (HotSpot's own record, so its frames are real),
  // and RESUME_PHYSICAL the physical frames walked above that entry. Also when the trace ended
  // right above a frame being deoptimized: RESUME is that frame at its original PC.
  bool resumable = false;
  bool resume_deoptimized = false;  // RESUME is a frame being deoptimized, not the first below an entry
  Regs resume{};
  int resume_physical = 0;
};
JVMKIT_SIGNAL_SAFE Completeness prove_complete(const CodeSnapshot& code, const Regs& top, uintptr_t stack_top,
                                               const hotspot::AsgctFrame* frames, jint n,
                                               PhysicalOut* physical = nullptr) noexcept;

// The same for a trace whose interrupted PC AT lies outside Java code while the thread runs Java
// (a leaf call from compiled code: System.nanoTime's clock, a runtime leaf), where neither the
// frame anchor nor the PC names the top Java frame: the caller's return address is looked for
// just above AT.sp, and a walk from there must match the trace exactly. Never kCutShort: a
// guessed start proves nothing by a mismatch.
JVMKIT_SIGNAL_SAFE Completeness prove_complete_from_leaf(const CodeSnapshot& code, const Regs& at, uintptr_t stack_top,
                                                         const hotspot::AsgctFrame* frames, jint n,
                                                         PhysicalOut* physical = nullptr) noexcept;

// How the proofs since the process started ended, by outcome ("proven:N more_frames:N ..."), for
// diagnostics. Not signal context.
std::string proof_walk_ends();

}  // namespace jvmkit::walk
