// SIGNAL CONTEXT. A current-thread request without a ucontext: the stack of this moment.
//
// May call: HotSpot's AsyncGetCallTrace, CodeSnapshot::find (through a SnapshotCell reader),
// JavaThreadLayout::last_java_frame (three loads from the current thread's own JavaThread, through
// the layout checked at Enable), and plain loads from the current thread's own stack between its
// last Java frame and the stack's top (this code runs below that frame, on the same stack, so all
// of it is mapped) and from code bytes of known ranges. May NOT call anything else (no allocation,
// locks, JNI/JVMTI).
//
// Such a request comes from code that runs outside Java: a JVMTI event callback (an allocation
// sample, a contended monitor), a JNI native method, a signal handler that interrupted native code
// or the VM. HotSpot then keeps the thread's last Java frame in its frame anchor, and a JVMTI
// callback runs with that anchor made walkable. AsyncGetCallTrace starts from the anchor in those
// states and never reads the ucontext, so it describes the stack at the call.
//
// Two cases are left to the delivery thread (GetStackTrace later, as the API allows for a request
// without a ucontext): the thread runs Java code (a signal handler that passed no ucontext: there
// is no anchor, and ASGCT needs the interrupted registers), and an anchor HotSpot has not made
// walkable (the VM entered from a compiled stub, interrupted by a signal before any callback).
#include "stack_walk/signal/x64/at_call.hpp"

#include <algorithm>
#include <cstring>

#include "base/debug_check.hpp"
#include "hotspot/java_thread.hpp"
#include "hotspot/method_layout.hpp"
#include "stack_walk/signal/x64/frame.hpp"
#include "stack_walk/signal/x64/instructions.hpp"
#include "stack_walk/signal/x64/physical_walk.hpp"

namespace jvmkit::walk {

namespace {

// x86-64 interpreter frame slots, in words from its rbp (HotSpot's frame_x86.hpp).
constexpr intptr_t kInterpreterMethodSlot = -3;
constexpr intptr_t kInterpreterBcpSlot = -8;

// The virtual frames of the Java frame AT in R, appended to FRAMES[*N..DEPTH): a compiled frame
// stands at a call, described by that call's own record; an interpreter frame by its Method* and
// bytecode pointer; a native method's frame (HotSpot's wrapper, or the interpreter's native entry,
// which keeps a null bytecode pointer) as AsyncGetCallTrace reports it. False when the frame cannot
// be described.
JVMKIT_SIGNAL_SAFE bool append_frames(const CodeRange& r, const Regs& at, const StackBounds& bounds,
                                      const hotspot::MethodLayout& methods, hotspot::AsgctFrame* frames, jint depth,
                                      jint* n) noexcept {
  if (r.kind == CodeKind::kNMethod && r.native_wrapper) {
    frames[(*n)++] = hotspot::AsgctFrame{hotspot::kAsgctNativeBci, r.method};
    return true;
  }
  if (r.kind == CodeKind::kNMethod) {
    int count = 0;
    const hotspot::AsgctFrame* call =
        r.call_sites != nullptr ? r.call_sites->find(static_cast<uint32_t>(at.pc - r.start), &count) : nullptr;
    if (call == nullptr) return false;
    for (int i = 0; i < count && *n < depth; i++) frames[(*n)++] = call[i];
    return true;
  }
  const uintptr_t method_slot = at.fp + 8 * kInterpreterMethodSlot, bcp_slot = at.fp + 8 * kInterpreterBcpSlot;
  if (!bounds.holds(method_slot) || !bounds.holds(bcp_slot)) return false;
  const uintptr_t method = load_word(method_slot);
  const jmethodID id = method != 0 ? methods.method_id(method) : nullptr;
  const uintptr_t bcp = load_word(bcp_slot);
  const jint bci = method != 0 && bcp != 0 ? methods.bci(method, bcp) : -1;
  if (id == nullptr || (bcp != 0 && bci < 0)) return false;
  frames[(*n)++] = hotspot::AsgctFrame{bcp == 0 ? hotspot::kAsgctNativeBci : bci, id};
  return true;
}

// x86-64 (not Windows) call stub frame: its JavaCallWrapper* lies 6 words below its rbp (HotSpot's
// frame::entry_frame_call_wrapper_offset).
constexpr intptr_t kCallWrapperSlot = -6;

enum class EntryStep { kFirst, kBelow, kUnknown };

// At the entry frame ENTRY (the call stub's return address and its rbp, as the Java frame above
// it returns to them): kFirst when it is the thread's first entry into Java, kBelow when the VM
// was called from Java frames further down (a class initialiser, a JNI upcall, reflection through
// a native method), whose first Java frame goes to *BELOW. kUnknown when that cannot be read.
JVMKIT_SIGNAL_SAFE EntryStep below_entry(const CodeSnapshot& code, const StackBounds& bounds, const Regs& entry,
                                         uintptr_t stack_top, Regs* below) noexcept {
  const hotspot::JavaThreadLayout* layout = hotspot::known_java_thread_layout();
  const uintptr_t slot = entry.fp + 8 * static_cast<uintptr_t>(kCallWrapperSlot);
  if (layout == nullptr || layout->wrapper_extent() == 0 || entry.fp <= bounds.lo || !bounds.holds(slot)) {
    return EntryStep::kUnknown;
  }
  // The wrapper is a local of the VM's JavaCalls code, which called the stub: above its frame.
  const uintptr_t wrapper = load_word(slot);
  if ((wrapper & 7) != 0 || wrapper <= entry.fp || !bounds.holds(wrapper + layout->wrapper_extent() - 8)) {
    return EntryStep::kUnknown;
  }
  const hotspot::LastJavaFrame saved = layout->saved_by_call_wrapper(wrapper);
  if (saved.sp == 0) return EntryStep::kFirst;
  if (saved.sp <= wrapper || !bounds.holds(saved.sp) || !first_java_frame(code, saved, stack_top, below)) {
    return EntryStep::kUnknown;
  }
  return EntryStep::kBelow;
}

// The stack from TOP, the compiled caller of the runtime stub the thread is in, walked frame by
// frame where AsyncGetCallTrace cannot start (HotSpot's own walker refuses the frames of some
// runtime stubs as senders), across entry frames as HotSpot walks them. Physical frames go to
// PHYSICAL as the capture's walk records them. Returns the frames written (> 0), or ASGCT's code
// for a frame it could not walk.
JVMKIT_SIGNAL_SAFE jint walk_below_stub(const CodeSnapshot& code, Regs top, uintptr_t stack_top,
                                        hotspot::AsgctFrame* frames, jint depth, PhysicalFrame* physical,
                                        int* physical_count) noexcept {
  const hotspot::MethodLayout* methods = hotspot::known_method_layout();
  if (methods == nullptr) return hotspot::asgct::kNotWalkableNotJava;
  const StackBounds bounds = walk_bounds(top, stack_top);
  const CodeRange* r = code.find(top.pc);
  jint n = 0;
  int p = 0;
  while (r != nullptr && n < depth) {
    const Regs at = top;
    const CodeRange& range = *r;
    const CallerStep step = java_caller(code, bounds, range, at, &top, &r);
    // A caller this walk cannot go past: the frames below it would be missing.
    if (step == CallerStep::kUnreadable || step == CallerStep::kCallerUnknown ||
        !append_frames(range, at, bounds, *methods, frames, depth, &n)) {
      return hotspot::asgct::kNotWalkableNotJava;
    }
    if (p < kMaxPhysicalFrames) physical[p++] = physical_frame_of(range);
    if (step != CallerStep::kEnd) continue;
    if (r == nullptr || !r->call_stub) break;  // not an entry frame: the end, as before
    const EntryStep entry = below_entry(code, bounds, top, stack_top, &top);
    if (entry == EntryStep::kUnknown) return hotspot::asgct::kNotWalkableNotJava;
    if (entry == EntryStep::kFirst) break;
    r = code.find(top.pc);
  }
  *physical_count = p;
  return n;
}

// Replaces the frames ASGCT gave the compiled frame of R at the return address RET (the first N
// of FRAMES, capacity DEPTH, up to its root method) with its call's own record. Returns the new
// count; unchanged when there is no record, or when a truncated trace would lose its marker.
JVMKIT_SIGNAL_SAFE jint exact_top(const CodeRange& r, uintptr_t ret, hotspot::AsgctFrame* frames, jint n,
                                  jint depth) noexcept {
  int count = 0;
  const hotspot::AsgctFrame* call =
      r.call_sites != nullptr ? r.call_sites->find(static_cast<uint32_t>(ret - r.start), &count) : nullptr;
  if (call == nullptr) return n;
  jint root = 0;
  while (root < n && frames[root].method_id != r.method) root++;
  if (root == n) return n;
  const jint old_top = root + 1;
  if (count < old_top && n == depth) return n;
  const jint kept = std::min<jint>(n - old_top, depth - count);
  if (kept > 0) std::memmove(frames + count, frames + old_top, sizeof(hotspot::AsgctFrame) * kept);
  std::memcpy(frames, call, sizeof(hotspot::AsgctFrame) * std::min<jint>(count, depth));
  return std::min<jint>(count + std::max<jint>(kept, 0), depth);
}

}  // namespace

JVMKIT_SIGNAL_SAFE AtCallCapture capture_at_call(hotspot::AsgctFunction asgct, JNIEnv* jni, hotspot::AsgctFrame* frames,
                                                 jint depth, const CodeSnapshotCell* code_snapshots,
                                                 uintptr_t stack_top, PhysicalFrame* physical) noexcept {
  JVMKIT_DCHECK(depth > 0);
  AtCallCapture out;
  const hotspot::JavaThreadLayout* layout = hotspot::known_java_thread_layout();
  const hotspot::LastJavaFrame last = layout != nullptr ? layout->last_java_frame(jni) : hotspot::LastJavaFrame{};
  hotspot::AsgctTrace trace{jni, 0, frames};
  asgct(&trace, depth, nullptr);
  out.result = trace.num_frames;
  namespace asgct_code = hotspot::asgct;
  const bool in_java = out.result == asgct_code::kUnknownJava || out.result == asgct_code::kNotWalkableJava;
  // Not walkable outside Java with an anchor present (or unknown): HotSpot refuses the runtime
  // stub the thread is in as a sender, or, interrupted by a signal, the VM was entered from a
  // stub that leaves the anchor's PC for later. Without any anchor the thread has no Java frame at
  // all, and that is the answer.
  const bool unwalkable =
      (out.result == asgct_code::kUnknownNotJava || out.result == asgct_code::kNotWalkableNotJava) &&
      (layout == nullptr || last.sp != 0);
  if (in_java) {
    out.later = true;
    return out;
  }
  const bool walkable_anchor = last.sp != 0 && last.pc != 0 && stack_top > last.sp;
  if (code_snapshots == nullptr || !walkable_anchor) {
    out.later = unwalkable;
    return out;
  }
  CodeSnapshotCell::Reader reader(*code_snapshots);
  const CodeSnapshot* code = reader.get();
  Regs top{};
  if (code == nullptr || !first_java_frame(*code, last, stack_top, &top)) {
    out.later = unwalkable;
    return out;
  }
  if (top.sp == last.sp) {  // the anchor is a Java frame: ASGCT's answer is exact
    out.later = unwalkable;
    if (out.result > 0) out.physical_count = walk_physical(*code, top, stack_top, physical, kMaxPhysicalFrames);
    return out;
  }
  // Below a runtime stub: ASGCT described the caller by the record after its call, or could not
  // start at all; then the whole stack is walked here, and what this walk cannot describe is
  // served later.
  if (out.result > 0) {
    out.result = exact_top(*code->find(top.pc), top.pc, frames, out.result, depth);
    out.physical_count = walk_physical(*code, top, stack_top, physical, kMaxPhysicalFrames);
  } else if (unwalkable) {
    out.result = walk_below_stub(*code, top, stack_top, frames, depth, physical, &out.physical_count);
    out.later = out.result <= 0;
  }
  return out;
}

}  // namespace jvmkit::walk
