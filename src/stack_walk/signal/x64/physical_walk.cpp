// SIGNAL CONTEXT. The physical frames of a stack that AsyncGetCallTrace walked successfully.
//
// May call: CodeSnapshot::find, hotspot::find_code_blob (plain loads of the code heaps' own
// structures, see hotspot/code_heap.hpp) and plain loads of stack slots. May NOT call anything else (no
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
#include <cstring>
#include <optional>

#include "base/debug_check.hpp"
#include "base/signal_safe.hpp"
#include "hotspot/code_heap.hpp"
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

JVMKIT_SIGNAL_SAFE uintptr_t leaf_call_spill(const CodeSnapshot& code, const CodeRange& r, const StackBounds& bounds,
                                             uintptr_t ret, uintptr_t sp) noexcept {
  const uintptr_t ret_offset = r.frame_size + (r.pushes_rbp ? 8 : 0);
  const uintptr_t lowest = std::max(r.start, ret > kMaxSpillScan ? ret - kMaxSpillScan : 0);
  // The call is at least 5 bytes (E8 rel32; "call r10" 3), the "sub rsp" at least 4 before it.
  for (uintptr_t at = ret - 7; at >= lowest && at < ret; at--) {
    const auto* p = reinterpret_cast<const uint8_t*>(at);
    uintptr_t n = 0;
    if (p[0] == 0x48 && p[1] == 0x83 && p[2] == 0xEC && p[3] < 0x80) {
      n = p[3];  // sub rsp, imm8 (sign-extended: only the positive ones)
    } else if (p[0] == 0x48 && p[1] == 0x81 && p[2] == 0xEC) {
      uint32_t imm;
      std::memcpy(&imm, p + 3, sizeof(imm));
      n = imm;
    } else {
      continue;
    }
    if (n == 0 || n % 8 != 0 || n > 8192) continue;
    const uintptr_t slot = sp + n + ret_offset;
    if (bounds.holds(slot) && plausible_return(code, load_word(slot))) return n;
  }
  return 0;
}

namespace {

// Where a compiled frame of R being deoptimized, whose SP is SP, keeps its original PC: the slot
// at nmethod::_orig_pc_offset from SP, read from the nmethod's header in the code heap. The PC
// found there must lie in R and have a debug record (a call, or for a frame stopped at a
// safepoint a poll), where HotSpot describes the frame; 0 otherwise.
JVMKIT_SIGNAL_SAFE uintptr_t original_pc(const CodeRange& r, uintptr_t sp, const StackBounds& bounds) noexcept {
  if (r.kind != CodeKind::kNMethod || r.native_wrapper || r.call_sites == nullptr) return 0;
  const std::optional<hotspot::CodeBlobInfo> nmethod = hotspot::find_code_blob(r.start);
  if (!nmethod || !nmethod->is_nmethod || nmethod->orig_pc_offset < 0 || nmethod->code_begin != r.start) return 0;
  const uintptr_t slot = sp + static_cast<uintptr_t>(nmethod->orig_pc_offset);
  if (!bounds.holds(slot)) return 0;
  const uintptr_t pc = load_word(slot);
  int count = 0;
  if (pc <= r.start || pc >= r.end || r.call_sites->find(static_cast<uint32_t>(pc - r.start), &count) == nullptr) {
    return 0;
  }
  return pc;
}

}  // namespace

JVMKIT_SIGNAL_SAFE CallerStep java_caller(const CodeSnapshot& code, const StackBounds& bounds, const CodeRange& r,
                                          const Regs& at, Regs* caller, const CodeRange** caller_range,
                                          bool* deoptimized) noexcept {
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
  uintptr_t ret = load_word(ret_slot);
  // Recursion and loops of calls return into the same code: try the current range first.
  const CodeRange* next = ret >= r.start && ret < r.end ? &r : code.find(ret);
  CallerStep step = CallerStep::kCaller;
  if (deoptimized != nullptr) *deoptimized = false;
  if (next == nullptr || (next->kind != CodeKind::kNMethod && next->kind != CodeKind::kInterpreter)) {
    step = CallerStep::kEnd;
  } else if (caller_sp <= at.sp || !bounds.holds(caller_sp)) {
    step = CallerStep::kCallerUnknown;
  } else if (next->kind == CodeKind::kNMethod && !follows_call(*next, ret)) {
    // The interpreter pushes its own return address (its return entry) before it jumps to a
    // callee, so a return into the interpreter does not follow a call instruction. A return into
    // compiled code anywhere else is the deoptimization handler HotSpot patched in: the caller is
    // being deoptimized, and stands at the original PC it keeps in its frame.
    const uintptr_t original = original_pc(*next, caller_sp, bounds);
    if (original == 0) {
      step = CallerStep::kCallerUnknown;
    } else {
      ret = original;
      if (deoptimized != nullptr) *deoptimized = true;
    }
  }
  // Written last: CALLER may be AT itself.
  *caller = Regs{ret, caller_sp, caller_fp};
  *caller_range = next;
  return step;
}

namespace {

// How far above the anchor the Java caller of a runtime stub is looked for: a stub's frame holds
// at most the registers it saves (C1's save_live_registers, with the vector registers: 1,136
// bytes measured with AVX2).
constexpr uintptr_t kMaxStubFrame = 512 * 8;

// True when the instruction just before RET (in compiled code R) is "call rel32" to an address in
// STUB: the call into the runtime stub the thread is in.
JVMKIT_SIGNAL_SAFE bool calls_into(const CodeRange& r, uintptr_t ret, const CodeRange& stub) noexcept {
  if (ret < r.start + 5) return false;
  const auto* p = reinterpret_cast<const uint8_t*>(ret);
  if (p[-5] != 0xE8) return false;
  int32_t rel = 0;
  std::memcpy(&rel, p - 4, sizeof(rel));
  const uintptr_t target = ret + static_cast<uintptr_t>(static_cast<intptr_t>(rel));
  return target >= stub.start && target < stub.end;
}

}  // namespace

JVMKIT_SIGNAL_SAFE bool first_java_frame(const CodeSnapshot& code, const hotspot::LastJavaFrame& last,
                                         uintptr_t stack_top, Regs* out) noexcept {
  // No pc recorded: HotSpot takes the return address just below the frame, as here.
  const uintptr_t pc = last.pc != 0 ? last.pc : load_word(last.sp - 8);
  const CodeRange* r = code.find(pc);
  if (is_java(r)) {
    *out = Regs{pc, last.sp, last.fp};
    return true;
  }
  if (r == nullptr || r->kind != CodeKind::kStub || r->vtable_stub) return false;
  const StackBounds bounds{last.sp, std::min(last.sp + kMaxStubFrame, stack_top)};
  // The caller's registers when SLOT holds a return address right after a call into the stub.
  const auto returns_from_stub = [&](uintptr_t slot, Regs* caller_regs) {
    const uintptr_t ret = load_word(slot);
    const CodeRange* caller = code.find(ret);
    if (caller == nullptr || caller->kind != CodeKind::kNMethod || !calls_into(*caller, ret, *r)) return false;
    *caller_regs = Regs{ret, slot + 8, slot >= last.sp + 8 ? load_word(slot - 8) : 0};
    return true;
  };
  // A stub that made an rbp frame (C1's, HotSpot's enter()): the return address is above it.
  if (last.fp > last.sp && bounds.holds(last.fp + 8) && returns_from_stub(last.fp + 8, out)) return true;
  // Else the frame's words are searched for the return address. A stub's frame can still hold the
  // return address of an earlier call into it, from a deeper frame of the same caller's code (an
  // unwritten spill slot): found first, it would give the stack of that earlier moment. A second
  // word that returns from this stub makes the answer ambiguous, and the caller is not named.
  int matches = 0;
  Regs ignored{};
  for (uintptr_t slot = last.sp; bounds.holds(slot) && matches < 2; slot += 8) {
    if (returns_from_stub(slot, matches == 0 ? out : &ignored)) matches++;
  }
  return matches == 1;
}

namespace {

// The registers HotSpot's safepoint blob saves right below its rbp (flags and the general
// registers, in words): where the poll's stub left the poll's PC.
constexpr uintptr_t kBlobSavedWords = 24;

// See frame_at_poll, a poll on the way out. SP is the anchor's.
JVMKIT_SIGNAL_SAFE bool caller_of_return_poll(const CodeSnapshot& code, const StackBounds& bounds, uintptr_t sp,
                                              uintptr_t poll, Regs* out) noexcept {
  const uintptr_t rbp = load_word(sp - 16);
  if ((rbp & 7) != 0 || rbp <= sp || !bounds.holds(rbp + 8)) return false;
  const uintptr_t ret = load_word(rbp + 8);
  const CodeRange* caller = code.find(ret);
  if (!is_java(caller) || (caller->kind == CodeKind::kNMethod && !follows_call(*caller, ret))) return false;
  int saved = 0;
  for (uintptr_t slot = rbp > sp + 8 * kBlobSavedWords ? rbp - 8 * kBlobSavedWords : sp; slot < rbp; slot += 8) {
    if (load_word(slot) == poll) saved++;
  }
  if (saved != 1) return false;
  *out = Regs{ret, rbp + 16, load_word(rbp)};
  return true;
}

}  // namespace

JVMKIT_SIGNAL_SAFE bool frame_at_poll(const CodeSnapshot& code, const hotspot::LastJavaFrame& last, uintptr_t poll,
                                      uintptr_t stack_top, Regs* out) noexcept {
  const CodeRange* blob = code.find(last.pc != 0 ? last.pc : load_word(last.sp - 8));
  const CodeRange* r = code.find(poll);
  if (blob == nullptr || !blob->safepoint_blob || r == nullptr || r->kind != CodeKind::kNMethod || r->native_wrapper) {
    return false;
  }
  const StackBounds bounds{last.sp, std::min(last.sp + kMaxBlobFrame, stack_top)};
  if (is_return_poll(reinterpret_cast<const uint8_t*>(poll), r->end - poll)) {
    return caller_of_return_poll(code, bounds, last.sp, poll, out);
  }
  const size_t length = safepoint_poll_length(reinterpret_cast<const uint8_t*>(poll), r->end - poll);
  if (length == 0) return false;
  uintptr_t found = 0;
  for (uintptr_t slot = last.sp + 8; bounds.holds(slot); slot += 8) {
    if (load_word(slot) != poll) continue;
    if (found != 0) return false;  // ambiguous
    found = slot;
  }
  if (found == 0) return false;
  // HotSpot describes the frame by the poll's own record (its PC is the poll's); where the
  // compiler put that record after the poll, the walk finds it there.
  int count = 0;
  const bool record_at_poll =
      r->call_sites != nullptr && r->call_sites->find(static_cast<uint32_t>(poll - r->start), &count) != nullptr;
  *out = Regs{record_at_poll ? poll : poll + length, found + 8, load_word(found - 8)};
  return true;
}

JVMKIT_SIGNAL_SAFE bool frame_being_deoptimized(const CodeSnapshot& code, const hotspot::LastJavaFrame& last,
                                                uintptr_t stack_top, Regs* out) noexcept {
  const uintptr_t anchor_pc = last.pc != 0 ? last.pc : load_word(last.sp - 8);
  const CodeRange* blob = code.find(anchor_pc);
  if (blob == nullptr || !blob->deopt_blob) return false;
  const std::optional<hotspot::CodeBlobInfo> blob_info = hotspot::find_code_blob(anchor_pc);
  if (!blob_info || blob_info->frame_size_bytes < 16) return false;
  const uintptr_t ret_slot = last.sp + blob_info->frame_size_bytes - 8;
  if (ret_slot + 8 >= stack_top) return false;
  const uintptr_t handler = load_word(ret_slot);
  const CodeRange* r = code.find(handler);
  if (r == nullptr) return false;
  const uintptr_t sp = ret_slot + 8;
  const uintptr_t orig = original_pc(*r, sp, StackBounds{sp, stack_top});
  if (orig == 0) return false;
  // The blob saved the frame's rbp right below the handler's address (its "push rbp").
  *out = Regs{orig, sp, load_word(ret_slot - 8)};
  return true;
}

JVMKIT_SIGNAL_SAFE bool anchor_frame(const CodeSnapshot& code, JNIEnv* jni, uintptr_t sp, uintptr_t stack_top,
                                     Regs* out) noexcept {
  const hotspot::JavaThreadLayout* layout = hotspot::known_java_thread_layout();
  if (layout == nullptr) return false;
  const hotspot::LastJavaFrame last = layout->last_java_frame(jni);
  if (last.sp <= sp || last.sp >= stack_top || (last.sp & 7) != 0) return false;
  // A thread a safepoint or handshake holds (it waits in the VM, called from the safepoint blob a
  // poll sent it to): its first Java frame stands at the poll, as AsyncGetCallTrace's walk
  // through the blob's frame finds it.
  return first_java_frame(code, last, stack_top, out) ||
         frame_at_poll(code, last, layout->saved_exception_pc_of(jni), stack_top, out) ||
         frame_being_deoptimized(code, last, stack_top, out);
}

JVMKIT_SIGNAL_SAFE int walk_physical(const CodeSnapshot& code, Regs at, uintptr_t stack_top, PhysicalFrame* out,
                                     int max) noexcept {
  const StackBounds bounds = walk_bounds(at, stack_top);
  JVMKIT_DCHECK(max >= 0 && max <= kMaxPhysicalFrames);  // OUT holds MAX frames
  const CodeRange* r = code.find(at.pc);
  int n = 0;
  while (n < max && r != nullptr) {
    const PhysicalFrame frame = physical_frame_of(*r);
    const CallerStep step = java_caller(code, bounds, *r, at, &at, &r);
    if (step == CallerStep::kUnreadable) break;
    out[n++] = frame;
    if (step == CallerStep::kCallerUnknown && n < max) out[n++] = physical_frame_of(*r);
    if (step != CallerStep::kCaller) break;
  }
  return n;
}

}  // namespace jvmkit::walk
