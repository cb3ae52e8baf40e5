// SIGNAL CONTEXT (see recovery_candidates.hpp for what this file may call).
#include "stack_walk/signal/x64/recovery_candidates.hpp"

#include "stack_walk/signal/x64/instructions.hpp"
#include "stack_walk/signal/x64/saved_registers.hpp"

namespace jvmkit::walk {

namespace {

// Candidates for a PC in an nmethod whose frame ASGCT could not describe. With the prologue known
// (CodeRange::prologue_*), the PC says exactly where the frame stands; otherwise try the likely
// ones (validation and ASGCT decide).
JVMKIT_SIGNAL_SAFE int nmethod_candidates(const CodeRange& r, uintptr_t pc, Candidate* out) noexcept {
  int n = 0;
  if (r.frame_size == 0) {
    out[n++] = {CandidateKind::kEntry, 0};
    out[n++] = {CandidateKind::kPushed, 0};
    if (uintptr_t size = prologue_frame_size(r, pc)) {
      out[n++] = {CandidateKind::kSubbed, size};
      out[n++] = {CandidateKind::kSubbedPushed, size};
    }
    return n;
  }
  const uintptr_t off = pc - r.start;
  if (off <= r.prologue_begin) {
    out[n++] = {CandidateKind::kEntry, 0};  // nothing of the frame exists yet
  } else if (off < r.prologue_end) {
    // C1: "push rbp" done, "sub" not yet. C2: "sub rsp, N" done, rbp not saved yet.
    out[n++] = r.pushes_rbp ? Candidate{CandidateKind::kPushed, 0} : Candidate{CandidateKind::kSubbed, r.frame_size};
  } else if (at_epilogue_pop(r, pc)) {
    out[n++] = {CandidateKind::kPushed, 0};
  } else if (after_epilogue(r, pc)) {
    out[n++] = {CandidateKind::kEntry, 0};
  } else {
    // The frame is built, but ASGCT still refused the PC: HotSpot counts the nmethod entry barrier
    // that follows the prologue (JDK 21+: "cmp [r15 + disarmed], imm; jne") as part of it.
    out[n++] = {CandidateKind::kComplete, r.frame_size + (r.pushes_rbp ? 8u : 0u)};
  }
  return n;
}

// Candidates for a PC in a stub that saved registers without a frame (CodeRange::saved_*): in
// its saving, the depth reached at PC; at an exit, the pops left before "ret"; in its body, the
// whole depth, or the pushes alone once its "sub rsp" was undone.
JVMKIT_SIGNAL_SAFE int saved_register_candidates(const CodeRange& r, uintptr_t pc, Candidate* out) noexcept {
  const auto at_depth = [](uintptr_t depth) {
    return depth == 0 ? Candidate{CandidateKind::kEntry, 0} : Candidate{CandidateKind::kSubbed, depth};
  };
  const uintptr_t offset = pc - r.start;
  if (offset < r.saved_end) {
    SavedRegisters upto{};
    read_saved_registers(reinterpret_cast<const uint8_t*>(r.start), r.end - r.start, offset, &upto);
    out[0] = at_depth(upto.depth);
    return 1;
  }
  const int pops = pops_before_ret(r.end, pc);
  if (pops >= 0) {
    out[0] = at_depth(8 * static_cast<uintptr_t>(pops));
    return 1;
  }
  int n = 0;
  out[n++] = at_depth(r.saved_depth);
  if (r.saved_depth != 8 * r.saved_pushes) out[n++] = at_depth(8 * static_cast<uintptr_t>(r.saved_pushes));
  return n;
}

// Candidates for a PC in a stub built like C2's code (CodeRange::frame_size, scan_stub_frame):
// before its "sub rsp, N", at its "ret" or right after its "pop rbp" the return address is at
// [sp]; between the sub and the store of rbp at [sp + N]; elsewhere its frame is complete.
JVMKIT_SIGNAL_SAFE int c2_stub_candidates(const CodeRange& r, uintptr_t pc, Candidate* out) noexcept {
  const auto* p = reinterpret_cast<const uint8_t*>(pc);
  const uintptr_t offset = pc - r.start;
  if (offset == 0 || p[0] == 0xC3 /* ret */ || p[-1] == 0x5D /* pop rbp */) {
    out[0] = {CandidateKind::kEntry, 0};
  } else if (offset < r.prologue_end) {
    out[0] = {CandidateKind::kSubbed, r.frame_size};
  } else {
    out[0] = {CandidateKind::kComplete, r.frame_size};
  }
  return 1;
}

}  // namespace

JVMKIT_SIGNAL_SAFE bool caller_regs(const StackBounds& b, const Regs& cur, Candidate c, Regs* out) noexcept {
  uintptr_t slot = 0;
  switch (c.kind) {
    case CandidateKind::kSubbed:
      slot = cur.sp + c.frame_size;
      out->sp = slot + 8;
      out->fp = cur.fp;
      break;
    case CandidateKind::kSubbedPushed:
      if (!b.holds(cur.sp + c.frame_size)) return false;
      slot = cur.sp + c.frame_size + 8;
      out->sp = slot + 8;
      out->fp = load_word(cur.sp + c.frame_size);
      break;
    case CandidateKind::kComplete:
      slot = cur.sp + c.frame_size;
      if (!b.holds(slot - 8)) return false;
      out->sp = slot + 8;
      out->fp = load_word(slot - 8);
      break;
    case CandidateKind::kEntry:
      slot = cur.sp;
      out->sp = cur.sp + 8;
      out->fp = cur.fp;
      break;
    case CandidateKind::kPushed:
      if (!b.holds(cur.sp)) return false;
      slot = cur.sp + 8;
      out->sp = cur.sp + 16;
      out->fp = load_word(cur.sp);  // the caller's rbp, just pushed
      break;
    case CandidateKind::kFrame:  // frame_size: the words pushed before rbp, in bytes
      if (cur.fp < cur.sp || !b.holds(cur.fp)) return false;
      slot = cur.fp + 8 + c.frame_size;
      out->sp = slot + 8;
      out->fp = load_word(cur.fp);
      break;
  }
  if (!b.holds(slot) || out->sp <= cur.sp) return false;
  out->pc = load_word(slot);
  return true;
}

JVMKIT_SIGNAL_SAFE int candidates_for(const CodeRange* range, const Regs& cur, bool first, Candidate* out) noexcept {
  int n = 0;
  if (range == nullptr) {
    // Native code (HotSpot's runtime is built with frame pointers): follow rbp; at a function's
    // first instruction (e.g. a signal handler just entered) the return address is at [sp].
    out[n++] = {CandidateKind::kFrame, 0};
    out[n++] = {CandidateKind::kEntry, 0};
  } else if (range->kind == CodeKind::kNMethod) {
    n = nmethod_candidates(*range, cur.pc, out);
  } else if (range->vtable_stub) {
    out[n++] = {CandidateKind::kEntry, 0};
  } else if (first && range->saved_pushes >= 2) {
    n = saved_register_candidates(*range, cur.pc, out);
  } else if (first && range->frame_size != 0) {
    n = c2_stub_candidates(*range, cur.pc, out);
  } else if (!first) {
    // A stub that called further down: its frame is complete.
    out[n++] = {CandidateKind::kFrame, range->cookie_frame_at != 0 ? 8u : 0u};
  } else if (range->cookie_frame_at != 0 && cur.pc >= range->start + range->cookie_frame_at) {
    out[n++] = {CandidateKind::kFrame, 8};
  } else {
    const uint8_t op = *reinterpret_cast<const uint8_t*>(cur.pc);
    const bool at_edge = cur.pc == range->start || op == 0x55 /* push rbp */ || op == 0xC3 /* ret */;
    const bool after_push = cur.pc > range->start && reinterpret_cast<const uint8_t*>(cur.pc)[-1] == 0x55;
    if (at_edge) out[n++] = {CandidateKind::kEntry, 0};
    if (after_push) out[n++] = {CandidateKind::kPushed, 0};
    // rbp is this stub's frame only if the stub makes one, first thing ("push rbp; mov rbp, rsp",
    // HotSpot's enter()), and only once it has. Many stubs keep no frame (C1's runtime stubs,
    // adapters), and rbp still holds an old value that can point at a stale copy of frames that
    // have returned: a wrong trace.
    const uintptr_t frame_made = frame_made_at(*range);
    if (frame_made != 0 && cur.pc >= range->start + frame_made) out[n++] = {CandidateKind::kFrame, 0};
    if (!at_edge) out[n++] = {CandidateKind::kEntry, 0};
  }
  return n;
}

JVMKIT_SIGNAL_SAFE bool in_nmethod_body(const CodeRange* r, uintptr_t pc) noexcept {
  return r != nullptr && r->kind == CodeKind::kNMethod && r->frame_size != 0 && pc - r->start >= r->prologue_end &&
         !at_epilogue_pop(*r, pc) && !after_epilogue(*r, pc);
}

JVMKIT_SIGNAL_SAFE jvmkitRecoveryKind kind_of(const CodeRange* range, Candidate c) noexcept {
  if (range == nullptr) return JVMKIT_RECOVERY_NATIVE_LEAF;
  if (range->kind == CodeKind::kNMethod) {
    switch (c.kind) {
      case CandidateKind::kEntry:
        return JVMKIT_RECOVERY_NMETHOD_ENTRY;
      case CandidateKind::kPushed:
        return JVMKIT_RECOVERY_NMETHOD_PUSHED;
      default:
        return JVMKIT_RECOVERY_NMETHOD_PROLOGUE;
    }
  }
  if (range->vtable_stub) return JVMKIT_RECOVERY_VTABLE_STUB;
  switch (c.kind) {
    case CandidateKind::kEntry:
      return JVMKIT_RECOVERY_STUB_ENTRY;
    case CandidateKind::kPushed:
      return JVMKIT_RECOVERY_STUB_PUSHED;
    case CandidateKind::kSubbed:
      return range->saved_pushes != 0 ? JVMKIT_RECOVERY_STUB_SAVED_REGISTERS : JVMKIT_RECOVERY_STUB_FRAME;
    default:
      return JVMKIT_RECOVERY_STUB_FRAME;
  }
}

}  // namespace jvmkit::walk
