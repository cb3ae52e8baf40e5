// SIGNAL CONTEXT. The Java frames of the current thread's stack, walked frame by frame from one
// physical Java frame down to the thread's first entry into Java, across the entry frames where the
// VM called Java again (a class initialiser, a JNI upcall, class loading, reflection), as HotSpot's
// own walker crosses them. Shared by the capture at a call (at_call.cpp), which builds a trace from
// it where AsyncGetCallTrace cannot start, and by the completeness proof (completeness.cpp), which
// checks AsyncGetCallTrace's trace against it.
//
// May call: CodeSnapshot::find, CallSites::find, the JavaThreadLayout and MethodLayout readers
// (loads through offsets checked at Enable), and plain loads of stack slots inside the bounds given
// (the current thread's own stack) and of code bytes of known ranges. Nothing else.
#pragma once

#include "base/signal_safe.hpp"
#include "hotspot/asgct.hpp"
#include "hotspot/method_layout.hpp"
#include "stack_walk/code_map.hpp"
#include "stack_walk/signal/x64/frame.hpp"
#include "stack_walk/signal/x64/physical_walk.hpp"

namespace jvmkit::walk {

// The virtual frames of one physical Java frame, innermost first, as AsyncGetCallTrace reports them.
struct VirtualFrames {
  const hotspot::AsgctFrame* frames = nullptr;  // COUNT frames (into the code map's records, or ONE);
                                                // nullptr: an interpreter frame left undescribed
  int count = 0;
  hotspot::AsgctFrame one{};  // the single frame of an interpreter frame or a native method
  bool known = true;          // false: a Java frame that could not be described (the walk ends)
  // A compiled frame being deoptimized, described at the original PC it keeps (java_caller), and
  // where it stands: a trace that ends right above it was cut short there by AsyncGetCallTrace.
  bool deoptimized = false;
  Regs at{};
};

// What a walk learns of the frames below its top one.
enum class Describe {
  kAll,                // every frame: an interpreter frame's Method* is followed to its jmethodID,
                       // which only a walk from a frame anchor may do (the frames are sure to be real)
  kAllButInterpreted,  // an interpreter frame is one frame whose method is not read (frames ==
                       // nullptr): a walk that may have gone wrong never follows a pointer it read
};

// Describes the Java frame AT in R: a compiled frame standing at a call by that call's own record;
// an interpreter frame by its Method* and bytecode pointer; a native method's frame (HotSpot's
// wrapper, or the interpreter's native entry, whose method has no bytecodes) as
// AsyncGetCallTrace reports it. False when the frame cannot be described. An interpreter frame
// is described as HOW says; METHODS (the layout, needed by Describe::kAll only) reads its Method*.
JVMKIT_SIGNAL_SAFE bool describe_java_frame(const CodeRange& r, const Regs& at, const StackBounds& bounds,
                                            const hotspot::MethodLayout* methods, Describe how,
                                            VirtualFrames* out) noexcept;

enum class EntryStep { kFirst, kBelow, kUnknown };

// At the entry frame ENTRY (the call stub's return address and its rbp, as the Java frame above
// it returns to them): kFirst when it is the thread's first entry into Java, kBelow when the VM
// was called from Java frames further down, whose first Java frame goes to *BELOW. kUnknown when
// that cannot be read.
JVMKIT_SIGNAL_SAFE EntryStep below_entry(const CodeSnapshot& code, const StackBounds& bounds, const Regs& entry,
                                         uintptr_t stack_top, Regs* below) noexcept;

// How a walk of the Java frames ended.
enum class JavaWalkEnd {
  kFirstEntry,     // at the thread's first entry into Java: every Java frame was visited
  kStopped,        // the visitor asked to stop
  kCallerUnknown,  // a Java frame follows that cannot be walked (java_caller's kCallerUnknown)
  kUnwalkable,     // a frame the walk cannot pass, describe or read (an unknown frame size, an
                   // entry frame it cannot read, a slot outside the bounds)
  kOtherCode,      // a Java frame returns into code that is neither Java nor the call stub
};

// Walks the Java frames from TOP (a PC in Java code) within BOUNDS, below STACK_TOP, and calls
// VISIT(range, virtual_frames) for each physical frame from the top, the last one possibly not
// described (virtual_frames.known false); VISIT returns false to stop.
// The top frame is described (its virtual frames passed) only when DESCRIBE_TOP: a frame
// interrupted at any PC has no call record, and gets COUNT 0. HOW: see Describe.
// ON_ENTRY(stub, first, below) is called at each entry frame the walk crosses: STUB the call
// stub's frame (PC its return address into the stub, FP its rbp), FIRST when it is the thread's
// first entry into Java, else BELOW the first Java frame below it.
template <typename Visit, typename OnEntry>
JVMKIT_SIGNAL_SAFE JavaWalkEnd walk_java_frames(const CodeSnapshot& code, Regs top, const StackBounds& bounds,
                                                uintptr_t stack_top, bool describe_top, Describe how, Visit&& visit,
                                                OnEntry&& on_entry) noexcept {
  const hotspot::MethodLayout* methods = hotspot::known_method_layout();
  if (methods == nullptr && how == Describe::kAll) return JavaWalkEnd::kUnwalkable;
  const CodeRange* r = code.find(top.pc);
  bool first = true;
  uintptr_t memo_pc = 0;  // the last call site described, and its record (in the code map)
  const hotspot::AsgctFrame* memo_frames = nullptr;
  int memo_count = 0;
  bool deoptimized = false;  // the frame at TOP is being deoptimized (java_caller)
  while (is_java(r)) {
    const Regs at = top;
    const bool at_deoptimized = deoptimized;
    const CodeRange& range = *r;
    // java_caller says kEnd for a compiled frame whose size it does not know: not the bottom here.
    if (range.kind == CodeKind::kNMethod && range.frame_size == 0) return JavaWalkEnd::kUnwalkable;
    const CallerStep step = java_caller(code, bounds, range, at, &top, &r, &deoptimized);
    if (step == CallerStep::kUnreadable) return JavaWalkEnd::kUnwalkable;
    VirtualFrames frames;
    const bool call_record = range.kind == CodeKind::kNMethod && !range.native_wrapper && (describe_top || !first);
    if (call_record && at.pc == memo_pc) {
      frames.frames = memo_frames;  // recursion: the same call site again, looked up once
      frames.count = memo_count;
    } else {
      frames.known = !(describe_top || !first) || describe_java_frame(range, at, bounds, methods, how, &frames);
      if (call_record && frames.known) {
        memo_pc = at.pc;
        memo_frames = frames.frames;
        memo_count = frames.count;
      }
    }
    first = false;
    frames.deoptimized = at_deoptimized;
    frames.at = at;
    // The visitor sees a frame it cannot describe too: that it is there may tell enough.
    if (!visit(range, frames)) return frames.known ? JavaWalkEnd::kStopped : JavaWalkEnd::kUnwalkable;
    if (!frames.known) return JavaWalkEnd::kUnwalkable;
    if (step == CallerStep::kCallerUnknown) return JavaWalkEnd::kCallerUnknown;
    if (step == CallerStep::kCaller) continue;
    if (r == nullptr || !r->call_stub) return JavaWalkEnd::kOtherCode;
    const Regs stub = top;
    const EntryStep entry = below_entry(code, bounds, top, stack_top, &top);
    if (entry == EntryStep::kUnknown) return JavaWalkEnd::kUnwalkable;
    on_entry(stub, entry == EntryStep::kFirst, top);
    if (entry == EntryStep::kFirst) return JavaWalkEnd::kFirstEntry;
    r = code.find(top.pc);
  }
  return JavaWalkEnd::kOtherCode;
}

template <typename Visit>
JVMKIT_SIGNAL_SAFE JavaWalkEnd walk_java_frames(const CodeSnapshot& code, Regs top, const StackBounds& bounds,
                                                uintptr_t stack_top, bool describe_top, Describe how,
                                                Visit&& visit) noexcept {
  return walk_java_frames(code, top, bounds, stack_top, describe_top, how, visit,
                          [](const Regs&, bool, const Regs&) {});
}

}  // namespace jvmkit::walk
