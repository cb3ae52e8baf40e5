// SIGNAL CONTEXT. The physical frames of a stack that AsyncGetCallTrace walked successfully.
//
// May call: CodeSnapshot::find and plain loads of stack slots. May NOT call anything else (no
// allocation, locks, JNI/JVMTI). Every slot read lies on the interrupted thread's own stack,
// between its SP and the stack's top as HotSpot recorded it (and at most kMaxWalkReach above SP):
// memory that is mapped whatever the values read. Each frame is derived from one whose return
// address was checked (a call site in known Java code), so a wrong guess ends the walk instead of
// wandering.
//
// Frame layout on x86_64 HotSpot (what HotSpot's own frame::sender does):
//   compiled (nmethod) frame at SP, prologue "sub rsp, N": return address at [SP + N] (C2, rbp
//     saved at [SP + N - 8]) or [SP + N + 8] (C1/native wrapper, rbp pushed at [SP + N]); the
//     caller's SP is just above the return address.
//   interpreter frame: rbp-based. Return address at [rbp + 8], caller's rbp at [rbp], and the
//     caller's SP (before any adapter extended the stack) at [rbp - 8] (sender SP).
#include "stack_walk/signal/x64/physical_walk.hpp"

#include <algorithm>

#include "base/debug_check.hpp"
#include "base/signal_safe.hpp"
#include "stack_walk/signal/x64/instructions.hpp"

namespace jvmkit::walk {

JVMKIT_SIGNAL_SAFE bool plausible_return(const CodeSnapshot& code, uintptr_t ret) noexcept {
  const CodeRange* r = code.find(ret);
  if (r == nullptr) return false;
  return r->kind == CodeKind::kInterpreter || follows_call(*r, ret);
}

JVMKIT_SIGNAL_SAFE int frame_sp_adjustment(const CodeSnapshot& code, const CodeRange& r, const StackBounds& bounds,
                                           uintptr_t sp) noexcept {
  JVMKIT_DCHECK(sp >= bounds.lo);  // the frame lies on the readable part of the stack
  const uintptr_t ret_offset = r.frame_size + (r.pushes_rbp ? 8 : 0);
  for (int k = 0; k <= kMaxIntrinsicPushes; k++) {
    const uintptr_t slot = sp + 8 * static_cast<uintptr_t>(k) + ret_offset;
    if (!bounds.holds(slot)) return -1;
    if (plausible_return(code, load_word(slot))) return 8 * k;
  }
  return -1;
}

JVMKIT_SIGNAL_SAFE CallerStep java_caller(const CodeSnapshot& code, const StackBounds& bounds, const CodeRange& r,
                                          const Regs& at, Regs* caller, const CodeRange** caller_range) noexcept {
  uintptr_t ret_slot = 0, caller_sp = 0, caller_fp = 0;
  if (r.kind == CodeKind::kNMethod) {
    if (r.frame_size == 0) return CallerStep::kEnd;
    ret_slot = at.sp + r.frame_size + (r.pushes_rbp ? 8 : 0);
    if (!bounds.holds(ret_slot) || !bounds.holds(ret_slot - 8)) return CallerStep::kUnreadable;
    caller_sp = ret_slot + 8;
    caller_fp = load_word(ret_slot - 8);
  } else if (r.kind == CodeKind::kInterpreter) {
    if (!bounds.holds(at.fp - 8) || !bounds.holds(at.fp + 8)) return CallerStep::kUnreadable;
    ret_slot = at.fp + 8;
    caller_fp = load_word(at.fp);
    caller_sp = load_word(at.fp - 8);
  } else {
    return CallerStep::kUnreadable;  // a stub (e.g. the call stub that entered Java): not a Java frame
  }
  JVMKIT_DCHECK(bounds.holds(ret_slot));  // every slot read lies within the bounds
  const uintptr_t ret = load_word(ret_slot);
  // Recursion and loops of calls return into the same code: try the current range first.
  const CodeRange* next = ret >= r.start && ret < r.end ? &r : code.find(ret);
  // The interpreter pushes its own return address (its return entry) before it jumps to a
  // callee, so a return into the interpreter does not follow a call instruction.
  if (next == nullptr || (next->kind != CodeKind::kNMethod && next->kind != CodeKind::kInterpreter) ||
      (next->kind == CodeKind::kNMethod && !follows_call(*next, ret)) || caller_sp <= at.sp ||
      !bounds.holds(caller_sp)) {
    return CallerStep::kEnd;
  }
  *caller = Regs{ret, caller_sp, caller_fp};
  *caller_range = next;
  return CallerStep::kCaller;
}

JVMKIT_SIGNAL_SAFE int walk_physical(const CodeSnapshot& code, Regs at, uintptr_t stack_top, PhysicalFrame* out,
                                     int max) noexcept {
  const StackBounds bounds = walk_bounds(at, stack_top);
  JVMKIT_DCHECK(max >= 0 && max <= kMaxPhysicalFrames);  // OUT holds MAX frames
  const CodeRange* r = code.find(at.pc);
  int n = 0;
  while (n < max && r != nullptr) {
    const PhysicalFrame frame{r->kind == CodeKind::kNMethod ? r->method : nullptr, r->kind};
    const CallerStep step = java_caller(code, bounds, *r, at, &at, &r);
    if (step == CallerStep::kUnreadable) break;
    out[n++] = frame;
    if (step == CallerStep::kEnd) break;
  }
  return n;
}

}  // namespace jvmkit::walk
