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
#include "stack_walk/signal/x64/completeness.hpp"
#include "stack_walk/signal/x64/frame.hpp"
#include "stack_walk/signal/x64/instructions.hpp"
#include "stack_walk/signal/x64/java_frames.hpp"
#include "stack_walk/signal/x64/physical_walk.hpp"

namespace jvmkit::walk {

JVMKIT_SIGNAL_SAFE jint walk_below_stub(const CodeSnapshot& code, Regs top, uintptr_t stack_top,
                                        hotspot::AsgctFrame* frames, jint depth, PhysicalFrame* physical,
                                        int physical_max, int* physical_count, Completeness* completeness,
                                        EntriesOut* entries, jint offset) noexcept {
  jint n = 0;
  int p = 0;
  const auto on_entry = [&](const Regs& stub, bool first, const Regs& below) {
    if (entries == nullptr) return;
    if (entries->count == kMaxEntryFrames) {
      entries->overflow = true;
      return;
    }
    entries->frames[entries->count++] = EntryFrame{stub, below, n + offset, first};
  };
  const JavaWalkEnd end = walk_java_frames(
      code, top, walk_bounds(top, stack_top), stack_top, true, Describe::kAll,
      [&](const CodeRange& range, const VirtualFrames& virt) {
        if (!virt.known) return false;
        for (int i = 0; i < virt.count && n < depth; i++) frames[n++] = virt.frames[i];
        if (p < physical_max) physical[p++] = physical_frame_of(range);
        return n < depth;
      },
      on_entry);
  // A frame this walk cannot pass: the frames below it would be missing. (A walk that ends in code
  // that is neither Java nor an entry frame ends there, as AsyncGetCallTrace's does.)
  if (end == JavaWalkEnd::kUnwalkable || end == JavaWalkEnd::kCallerUnknown) return hotspot::asgct::kNotWalkableNotJava;
  *physical_count = p;
  // Built from the walk itself: whole when it reached the thread's first entry into Java.
  *completeness = end == JavaWalkEnd::kFirstEntry ? Completeness::kProven
                  : end == JavaWalkEnd::kStopped  ? Completeness::kUnchecked
                                                  : Completeness::kUnproven;
  return n;
}

JVMKIT_SIGNAL_SAFE Completeness complete_below_entry(const CodeSnapshot& code, uintptr_t stack_top,
                                                     hotspot::AsgctFrame* frames, jint* n, jint depth,
                                                     PhysicalOut* walked) noexcept {
  JVMKIT_DCHECK(walked->resumable && *n >= 0 && walked->resume_physical <= walked->max);
  if (*n >= depth) return Completeness::kCutShort;
  Completeness below = Completeness::kUnchecked;
  int physical_below = 0;
  const jint added = walk_below_stub(code, walked->resume, stack_top, frames + *n, depth - *n,
                                     walked->frames + walked->resume_physical, walked->max - walked->resume_physical,
                                     &physical_below, &below, walked->entries, *n);
  if (added <= 0) return Completeness::kCutShort;
  *n += added;
  walked->count = walked->resume_physical + physical_below;
  return below;
}

namespace {

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

// After ASGCT's trace of OUT->result frames from TOP: the physical frames, and the proof that a
// trace that is not truncated is the whole stack.
JVMKIT_SIGNAL_SAFE void walk_and_prove(const CodeSnapshot& code, const Regs& top, uintptr_t stack_top,
                                       const hotspot::AsgctFrame* frames, jint depth, PhysicalFrame* physical,
                                       AtCallCapture* out) noexcept {
  if (out->result < depth) {
    PhysicalOut walked{physical, kMaxPhysicalFrames};
    out->completeness = prove_complete(code, top, stack_top, frames, out->result, &walked);
    out->physical_count = walked.count;
    if (out->completeness != Completeness::kUnchecked) return;  // the proof's walk was the physical walk
  }
  out->physical_count = walk_physical(code, top, stack_top, physical, kMaxPhysicalFrames);
}

// Whether the current thread runs a mounted continuation (a virtual thread): see capture_at_call.
JVMKIT_SIGNAL_SAFE bool runs_virtual_thread(const hotspot::JavaThreadLayout* layout, JNIEnv* jni) noexcept {
  return layout != nullptr && layout->runs_continuation(jni);
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
    // A trace ASGCT gave that nothing can check (its first frame is code the map does not know
    // yet, e.g. a native wrapper HotSpot has not reported): served later too. A virtual thread's
    // (below): ASGCT's, as the walks could not check it anyway.
    out.later = unwalkable || (out.result > 0 && !runs_virtual_thread(layout, jni));
    if (!out.later && out.result > 0) out.completeness = Completeness::kUnproven;
    return out;
  }
  // Below a runtime stub, ASGCT described the caller by the record after its call: the call's own
  // record replaces it.
  if (out.result > 0 && top.sp != last.sp)
    out.result = exact_top(*code->find(top.pc), top.pc, frames, out.result, depth);
  if (out.result > 0) walk_and_prove(*code, top, stack_top, frames, depth, physical, &out);
  // A mounted virtual thread: HotSpot thaws its frames lazily, and the walks here stop at the
  // return barrier below the thawed ones, where ASGCT goes on to the continuation's entry. ASGCT's
  // trace is then the one to keep: the delivery reports the virtual thread's part and completes
  // what is still frozen (virtual_threads.hpp).
  if (out.result > 0 && out.completeness != Completeness::kProven && runs_virtual_thread(layout, jni)) return out;
  // ASGCT could not start (HotSpot refuses some runtime stubs as senders), or stopped early (below
  // a call from the VM back into Java whose caller is a stub's frame) or its trace could not be
  // proven: the whole stack is walked here, from the thread's last Java frame, which stands at a
  // call. What this walk cannot describe either is served later.
  if ((out.result > 0 && out.completeness != Completeness::kProven && out.completeness != Completeness::kUnchecked) ||
      (out.result <= 0 && unwalkable)) {
    out.completeness = Completeness::kUnchecked;
    out.result = walk_below_stub(*code, top, stack_top, frames, depth, physical, kMaxPhysicalFrames,
                                 &out.physical_count, &out.completeness, nullptr, 0);
    out.later = out.result <= 0 || out.completeness == Completeness::kUnproven;
  }
  return out;
}

JVMKIT_SIGNAL_SAFE AtCallCapture capture_at_anchor(JNIEnv* jni, hotspot::AsgctFrame* frames, jint depth,
                                                   const CodeSnapshot& code, uintptr_t stack_top,
                                                   PhysicalFrame* physical, EntriesOut* entries) noexcept {
  AtCallCapture out;
  out.result = hotspot::asgct::kNotWalkableNotJava;
  const hotspot::JavaThreadLayout* layout = hotspot::known_java_thread_layout();
  if (layout == nullptr) return out;
  hotspot::LastJavaFrame last = layout->last_java_frame(jni);
  if (last.sp == 0 || stack_top <= last.sp) return out;
  // The thread ran below its anchor's SP, so the word under it is on its mapped stack.
  if (last.pc == 0) last.pc = load_word(last.sp - 8);
  Regs top{};
  if (!first_java_frame(code, last, stack_top, &top) &&
      !frame_at_poll(code, last, layout->saved_exception_pc_of(jni), stack_top, &top) &&
      !frame_being_deoptimized(code, last, stack_top, &top)) {
    return out;
  }
  if (entries != nullptr) *entries = EntriesOut{};
  out.result = walk_below_stub(code, top, stack_top, frames, depth, physical, kMaxPhysicalFrames, &out.physical_count,
                               &out.completeness, entries, 0);
  return out;
}

}  // namespace jvmkit::walk
