// SIGNAL CONTEXT. Recovery of samples AsyncGetCallTrace (ASGCT) cannot place.
//
// May call: atomics, ASGCT, CodeSnapshot::find (a binary search over an immutable snapshot held
// through a SnapshotCell reader), JavaThreadLayout::last_java_frame (three loads from the current
// thread's own JavaThread, through the layout checked at Enable), CodeHeapLayout::in_code_heaps
// (loads of the code heaps' bounds, see hotspot/code_heap.hpp), the interpreter entries learnt
// at Enable and MethodLayout::method_id of the Method* an entry holds in rbx
// (interpreter_entry.hpp), and plain loads from memory that is known to be mapped:
//   - the interrupted thread's stack between its SP and the lower of SP + kMaxStackReach and the
//     stack's top (HotSpot's JavaThread::_stack_base, read through the layout checked at Enable,
//     see hotspot/java_thread.hpp). The signal frame was pushed below SP on this same stack, so all
//     of that range is mapped, whatever garbage a frame-pointer guess reads from it;
//   - code bytes inside ranges of the code map: the code cache is reserved once and never
//     unmapped, so even a stale range still reads as memory.
// May NOT call: malloc/free, locks, JNI/JVMTI, stdio, longjmp. Never dereferences a pointer read
// from the stack before checking it against those bounds.
//
// Why ASGCT fails there: it starts from the interrupted PC/SP/FP and needs a frame it can
// describe. In a stub (intrinsic such as Math.log, arraycopy, vtable/itable dispatch) or in a
// compiled method before its frame is built or after it is torn down, it cannot, and answers
// unknown_Java (-5) or not_walkable_Java (-6). The caller is one return address away: at [sp]
// before "push rbp" and after "pop rbp"/"leave", at [sp + 8] right after "push rbp", and at
// [rbp + 8] once the stub has its own rbp frame. A candidate is accepted only if the recovered PC
// lies in Java code jvmkit knows of (an nmethod or the interpreter) and directly follows a call
// instruction, and ASGCT then succeeds from it.
#include "stack_walk/signal/x64/recovery.hpp"

#include <link.h>
#include <ucontext.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "base/debug_check.hpp"
#include "base/signal_safe.hpp"
#include "hotspot/code_heap.hpp"
#include "hotspot/java_thread.hpp"
#include "hotspot/method_layout.hpp"
#include "stack_walk/signal/failed_samples.hpp"
#include "stack_walk/signal/x64/anchor_recovery.hpp"
#include "stack_walk/signal/x64/at_call.hpp"
#include "stack_walk/signal/x64/completeness.hpp"
#include "stack_walk/signal/x64/failed_capture.hpp"
#include "stack_walk/signal/x64/instructions.hpp"
#include "stack_walk/signal/x64/interpreter_entry.hpp"
#include "stack_walk/signal/x64/leaf_call.hpp"
#include "stack_walk/signal/x64/native_text.hpp"
#include "stack_walk/signal/x64/recovery_candidates.hpp"
#include "stack_walk/signal/x64/recovery_capture.hpp"

namespace jvmkit::walk {

JVMKIT_SIGNAL_SAFE RecoveryCounters& recovery_counters() noexcept {
  static constinit RecoveryCounters instance;
  return instance;
}

void RecoveryCounters::snapshot(jvmkitRecoveryCounters* out) const noexcept {
  // Outcomes first, then attempts: a recovery in flight shows as missing, never as extra.
  for (int i = 0; i < JVMKIT_RECOVERY_KIND_COUNT; i++) out->recovered_by_kind[i] = recovered[i].load();
  for (int i = 0; i < JVMKIT_UNRECOVERED_REASON_COUNT; i++) out->unrecovered_by_reason[i] = unrecovered[i].load();
  out->attempted = attempted.load();
}

// The steps share one context (recovery_capture.hpp); the walk of a Java thread inside the VM
// from its frame anchor (step 3c) is in anchor_recovery.cpp.
namespace {

// Frames unwound (stubs, leaf native frames) before giving up, and ASGCT retries at most.
constexpr int kMaxSteps = 12;
constexpr int kMaxRetries = 4;

// Step 1. Inside a compiled method's body, ASGCT trusts SP. While an inline intrinsic keeps
// registers pushed, SP lies a few words below the frame: ASGCT then fails, or worse, reads a
// sender from the wrong slot and delivers a trace that is cut short or wrong. When the frame's
// return-address slot is not at SP's distance but a few words higher, ASGCT runs again from the
// frame's real SP and its answer is final. nullopt: not such a case.
JVMKIT_SIGNAL_SAFE std::optional<jint> walk_from_real_frame_sp(const Capture& c, jint first) noexcept {
  if (c.code == nullptr || !c.stack_known() || !in_nmethod_body(c.range, c.at.pc) || !recoverable_or_success(first)) {
    return std::nullopt;
  }
  const int adjust = frame_sp_adjustment(*c.code, *c.range, c.bounds(), c.at.sp);
  if (adjust <= 0) return std::nullopt;
  RecoveryCounters& rc = recovery_counters();
  rc.attempted.fetch_add(1, std::memory_order_relaxed);
  const Regs real{c.at.pc, c.at.sp + static_cast<uintptr_t>(adjust), c.at.fp};
  jint result = c.retry(real, RetryPc::kExact, 0);
  if (result > 0) {
    *c.physical_count = c.walk(real, 0, &result);
    rc.recovered[JVMKIT_RECOVERY_NMETHOD_INTRINSIC].fetch_add(1, std::memory_order_relaxed);
  } else {
    rc.unrecovered[JVMKIT_UNRECOVERED_RETRY_FAILED].fetch_add(1, std::memory_order_relaxed);
  }
  return result;
}

// Step 2. After ASGCT succeeded: the physical frames, from the interrupted PC when it is in Java
// code, else from the thread's last Java frame (where ASGCT started). Returns the trace's frames:
// N, or more when the proof completed it (Capture::walk).
JVMKIT_SIGNAL_SAFE jint record_physical_frames(const Capture& c, jint n) noexcept {
  if (c.code == nullptr || !c.stack_known()) return n;
  Regs from = c.at;
  if (is_java(c.range) || anchor_frame(*c.code, c.jni, c.at.sp, c.stack_top, &from)) {
    *c.physical_count = c.walk(from, 0, &n);
  } else if (n < c.depth) {
    PhysicalOut walked{c.physical, kMaxPhysicalFrames, 0, c.entries, 0};
    *c.completeness = prove_complete_from_leaf(*c.code, c.at, c.stack_top, c.frames, n, &walked);
    *c.physical_count = walked.count;
  }
  return n;
}

// Step 2a. After ASGCT succeeded from a PC outside the code cache with no frame anchor: a native
// leaf call of compiled code (leaf_call.hpp). ASGCT described the caller by the record after the
// call; run it again from the call instruction, so that the call's own record describes it. The
// answer is taken when it ends in the same frame as the first (the same stack); otherwise the
// first answer is made again. In code with safepoint records only the leaf call has no record of
// its own: the trace is marked biased (*COARSE_TOP) and ASGCT's answer stands. nullopt: not
// such a sample.
JVMKIT_SIGNAL_SAFE std::optional<jint> describe_leaf_caller(const Capture& c, jint first, bool* coarse_top) noexcept {
  if (c.code == nullptr || c.range != nullptr || !c.stack_known()) return std::nullopt;
  const hotspot::JavaThreadLayout* layout = hotspot::known_java_thread_layout();
  if (layout == nullptr || layout->last_java_frame(c.jni).sp != 0) return std::nullopt;  // ASGCT used the anchor
  LeafCaller caller{};
  if (!leaf_call_caller(*c.code, c.bounds(), c.at, &caller)) return std::nullopt;
  if (caller.range->coarse_debug_info) {
    *coarse_top = true;
    return std::nullopt;
  }
  // A call from a GC barrier stub that spilled registers below the frame: the frame's SP is higher.
  // ASGCT's first answer read its sender from the wrong slot then (one frame, or stale callers):
  // a walk from the frame's real SP stands on its own.
  const uintptr_t spill = leaf_call_spill(*c.code, *caller.range, c.bounds(), caller.regs.pc, caller.regs.sp);
  caller.regs.sp += spill;
  const jmethodID bottom = c.frames[first - 1].method_id;
  jint result = c.retry(caller.regs, RetryPc::kReturnAddress, 0);
  if (result > 0 && (c.frames[result - 1].method_id == bottom || spill > 0)) {
    *c.physical_count = c.walk(caller.regs, 0, &result);
    return result;
  }
  return run_asgct(c.asgct, c.jni, const_cast<ucontext_t*>(c.uc), c.frames, c.depth);
}

// Step 3. Whether a failed capture is worth a recovery; counts the attempt, and the reason when
// the answer is no for a reason of ours.
JVMKIT_SIGNAL_SAFE bool should_recover(const Capture& c, jint result) noexcept {
  if (!recoverable_code(result) || c.code == nullptr) return false;
  // Not walkable outside Java: only ours to fix when the PC is in code we know.
  if (result == hotspot::asgct::kNotWalkableNotJava && c.range == nullptr) return false;
  RecoveryCounters& rc = recovery_counters();
  rc.attempted.fetch_add(1, std::memory_order_relaxed);
  if (!c.stack_known()) {
    rc.unrecovered[JVMKIT_UNRECOVERED_NO_STACK_BOUNDS].fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  return true;
}

// Only a return address is a valid caller PC: in known code, right after a call. The interpreter
// is the exception: it pushes its return entry itself and jumps to the callee (ASGCT then
// validates the interpreter frame that rbp points to).
JVMKIT_SIGNAL_SAFE bool is_return_address(const CodeRange* target, const CodeRange& native, uintptr_t pc) noexcept {
  if (target != nullptr && target->kind == CodeKind::kInterpreter) return true;
  return follows_call(target != nullptr ? *target : native, pc);
}

// Step 3a. A PC in the interpreter: only a method entry that has not built its frame yet is
// recovered (interpreter_entry.hpp). The method being entered goes first, at bci 0 (it has run no
// bytecode; ASGCT reports the same a few instructions later) or as a native frame, and its caller
// follows from a retry.
JVMKIT_SIGNAL_SAFE jint recover_interpreter_entry(const Capture& c, jint result) noexcept {
  RecoveryCounters& rc = recovery_counters();
  const InterpreterEntries* entries = known_interpreter_entries();
  const hotspot::MethodLayout* methods = hotspot::known_method_layout();
  EntryCaller entry{};
  if (entries == nullptr || methods == nullptr ||
      !interpreter_entry_caller(*entries, entry_regs_of(c.uc), c.bounds(), &entry)) {
    rc.unrecovered[JVMKIT_UNRECOVERED_INTERPRETER].fetch_add(1, std::memory_order_relaxed);
    return result;
  }
  const jmethodID top = methods->method_id(entry.method);
  const CodeRange* target = c.code->find(entry.caller.pc);
  if (top == nullptr || !is_java(target) || !is_return_address(target, *target, entry.caller.pc)) {
    rc.unrecovered[JVMKIT_UNRECOVERED_NO_CALLER].fetch_add(1, std::memory_order_relaxed);
    return result;
  }
  c.frames[0] = hotspot::AsgctFrame{entry.native ? hotspot::kAsgctNativeBci : 0, top};
  c.physical[0] = {nullptr, CodeKind::kInterpreter};
  jint n = 1;
  if (c.depth > 1) {
    const bool interpreted = target->kind == CodeKind::kInterpreter;
    const jint retried = c.retry(entry.caller, interpreted ? RetryPc::kExact : RetryPc::kReturnAddress, 1);
    if (retried <= 0) {
      rc.unrecovered[JVMKIT_UNRECOVERED_RETRY_FAILED].fetch_add(1, std::memory_order_relaxed);
      return result;
    }
    n += retried;
    *c.physical_count = 1 + c.walk(entry.caller, 1, &n);
  } else {
    *c.physical_count = 1;
  }
  rc.recovered[JVMKIT_RECOVERY_INTERPRETER_ENTRY].fetch_add(1, std::memory_order_relaxed);
  return n;
}

// Step 4. Unwinds from the interrupted context to the first Java caller (through stubs, leaf
// native frames and other signal handlers' frames), validating every candidate, and retries ASGCT
// from it. Returns ASGCT's final answer (> 0 when recovered); counts the outcome.
// A recovery that retried ASGCT from FROM with RETRIED frames: ENTERED (if not null), a compiled
// method stopped before its frame is described (its prologue, its entry barrier), goes first, in the
// frame the retry left free, location unknown; then the physical frames and the proof from FROM.
JVMKIT_SIGNAL_SAFE jint recovered_below(const Capture& c, const CodeRange* entered, const Regs& from, jint retried,
                                        jvmkitRecoveryKind kind) noexcept {
  int walked = 0;
  if (entered != nullptr) {
    JVMKIT_DCHECK(retried < c.depth);  // the retry skipped frame 0: with it the trace still fits
    c.frames[0].method_id = entered->method;
    c.frames[0].lineno = -1;
    retried += 1;
    c.physical[walked++] = {entered->method, CodeKind::kNMethod};
  }
  walked += c.walk(from, walked, &retried);
  *c.physical_count = walked;
  recovery_counters().recovered[kind].fetch_add(1, std::memory_order_relaxed);
  return retried;
}

// A compiled method being entered, stopped in its entry barrier's call into HotSpot's barrier stub
// (at AT, the return address into ENTERED: its frame is made, and HotSpot counts the barrier as
// part of its prologue, so ASGCT refuses it): the method goes first, location unknown as for a
// PC in its prologue, then its caller at [sp + frame size] and the rest from ASGCT. 0: not
// recovered.
JVMKIT_SIGNAL_SAFE jint recover_entered_nmethod(const Capture& c, const CodeRange& entered, const Regs& at,
                                                int* retries) noexcept {
  if (entered.frame_size == 0 || entered.native_wrapper || c.depth < 2 || *retries >= kMaxRetries) return 0;
  Regs outer{};
  const Candidate complete{CandidateKind::kComplete, entered.frame_size + (entered.pushes_rbp ? 8u : 0u)};
  if (!caller_regs(c.bounds(), at, complete, &outer)) return 0;
  const CodeRange* target = c.code->find(outer.pc);
  if (!is_java(target) || (target->kind == CodeKind::kNMethod && !follows_call(*target, outer.pc))) return 0;
  (*retries)++;
  jint retried = c.retry(outer, target->kind == CodeKind::kInterpreter ? RetryPc::kExact : RetryPc::kReturnAddress, 1);
  if (retried <= 0) return 0;
  return recovered_below(c, &entered, outer, retried, JVMKIT_RECOVERY_NMETHOD_PROLOGUE);
}

JVMKIT_SIGNAL_SAFE jint recover_from_caller(const Capture& c, jint result) noexcept {
  RecoveryCounters& rc = recovery_counters();
  // A compiled method interrupted in its prologue/epilogue is itself the top frame: its root
  // method goes first (location unknown), and its caller follows from the retry.
  const bool nmethod = c.range != nullptr && c.range->kind == CodeKind::kNMethod;
  const StackBounds bounds = c.bounds();
  Regs cur = c.at;
  const CodeRange* cur_range = c.range;
  bool cur_interrupted = true;  // CUR is an interrupted context (not a return address)
  bool crossed_signal = false;
  jvmkitRecoveryKind first_kind = JVMKIT_RECOVERY_KIND_COUNT;
  int retries = 0;
  bool any_valid = false;
  auto succeed = [&](const Regs& from, jint retried, jvmkitRecoveryKind kind) {
    return recovered_below(c, nmethod && !crossed_signal ? c.range : nullptr, from, retried, kind);
  };
  for (int step = 0; step < kMaxSteps && retries < kMaxRetries; step++) {
    if (step > 0 && cur_interrupted && is_java(cur_range)) {
      // The Java code another signal handler interrupted: ASGCT from there, as is.
      any_valid = true;
      retries++;
      const jint retried = c.retry(cur, RetryPc::kExact, 0);
      if (retried > 0) return succeed(cur, retried, JVMKIT_RECOVERY_SIGNAL_FRAME);
      break;
    }
    // An nmethod is only unwound from the sample's own PC (prologue/epilogue, see above).
    if (step > 0 && cur_range != nullptr && cur_range->kind == CodeKind::kNMethod) break;
    Candidate cands[4];
    const int n = candidates_for(cur_range, cur, cur_interrupted, cands);
    bool have_next = false, next_interrupted = false;
    Regs next{};
    const CodeRange* next_range = nullptr;
    for (int i = 0; i < n && retries < kMaxRetries; i++) {
      Regs caller{};
      if (!caller_regs(bounds, cur, cands[i], &caller)) continue;
      const CodeRange* target = c.code->find(caller.pc);
      CodeRange native{};
      if (target == nullptr && !in_native_text(caller.pc, &native)) continue;
      if (target == nullptr && is_sigreturn(native, caller.pc)) {
        if (!interrupted_context_below(bounds, cur, caller, &next)) continue;
        next_range = c.code->find(next.pc);
        have_next = next_interrupted = true;
        crossed_signal = true;
        break;
      }
      if (!is_return_address(target, native, caller.pc)) continue;
      // A stub that saved registers takes its arguments on the stack: its compiled caller pushed
      // them below its own frame, whose SP is that much higher.
      if (cands[i].kind == CandidateKind::kSubbed && cur_range != nullptr && cur_range->saved_pushes != 0 &&
          target != nullptr && target->kind == CodeKind::kNMethod && target->frame_size != 0) {
        const int adjust = frame_sp_adjustment(*c.code, *target, bounds, caller.sp);
        if (adjust < 0) continue;
        caller.sp += static_cast<uintptr_t>(adjust);
      }
      // From an nmethod's own prologue/epilogue the caller must be Java code.
      if (step == 0 && nmethod && !is_java(target)) continue;
      if (step == 0) first_kind = kind_of(cur_range, cands[i]);
      if (is_java(target)) {
        any_valid = true;
        retries++;
        const bool interpreted = target->kind == CodeKind::kInterpreter;
        const jint retried = c.retry(caller, interpreted ? RetryPc::kExact : RetryPc::kReturnAddress,
                                     nmethod && !crossed_signal ? 1 : 0);
        if (retried <= 0 && !nmethod && !crossed_signal && cur_range != nullptr && cur_range->cookie_frame_at != 0 &&
            target->kind == CodeKind::kNMethod) {
          if (const jint entered = recover_entered_nmethod(c, *target, caller, &retries); entered > 0) return entered;
        }
        if (retried <= 0) continue;
        return succeed(caller, retried, crossed_signal ? JVMKIT_RECOVERY_SIGNAL_FRAME : first_kind);
      }
      // A stub or native frame further up: unwind through it if no candidate reaches Java.
      if (!have_next) {
        have_next = true;
        next = caller;
        next_range = target;
      }
    }
    if (!have_next || (nmethod && !crossed_signal && step == 0 && !next_interrupted)) break;
    cur = next;
    cur_range = next_range;
    cur_interrupted = next_interrupted;
  }
  const jvmkitUnrecoveredReason reason = any_valid            ? JVMKIT_UNRECOVERED_RETRY_FAILED
                                         : c.range == nullptr ? JVMKIT_UNRECOVERED_UNKNOWN_PC
                                                              : JVMKIT_UNRECOVERED_NO_CALLER;
  rc.unrecovered[reason].fetch_add(1, std::memory_order_relaxed);
  return result;
}

// Step 3b. A PC at the first instruction of a safepoint handler blob: a safepoint poll in compiled
// code has just sent the thread there. On a poll in a method's body HotSpot's signal handler
// changed only the thread's PC, and keeps the poll's own PC in JavaThread::_saved_exception_pc; a
// poll at a return jumps there with that field set, the method's frame already torn down. For
// Java, the thread still stands at the poll: the walk starts there, and at a return poll from the
// method's caller (the epilogue rows of the candidates). Any other blob PC is a stub's.
JVMKIT_SIGNAL_SAFE jint recover_at_poll(const Capture& c, jint result) noexcept {
  const hotspot::JavaThreadLayout* layout = hotspot::known_java_thread_layout();
  const uintptr_t poll = layout != nullptr ? layout->saved_exception_pc_of(c.jni) : 0;
  const CodeRange* range = poll != 0 ? c.code->find(poll) : nullptr;
  if (range == nullptr || range->kind != CodeKind::kNMethod) return recover_from_caller(c, result);
  Capture at_poll = c;
  at_poll.at.pc = poll;
  at_poll.range = range;
  if (in_nmethod_body(range, poll)) {
    jint retried = at_poll.retry(at_poll.at, RetryPc::kExact, 0);
    if (retried > 0) {
      *c.physical_count = at_poll.walk(at_poll.at, 0, &retried);
      recovery_counters().recovered[JVMKIT_RECOVERY_SAFEPOINT_POLL].fetch_add(1, std::memory_order_relaxed);
      return retried;
    }
  }
  return recover_from_caller(at_poll, result);
}

// The capture's steps, ASGCT's first answer in *FIRST_OUT.
JVMKIT_SIGNAL_SAFE jint capture_steps(const Capture& c, bool* coarse_top, jint* first_out) noexcept {
  const jint first = run_asgct(c.asgct, c.jni, const_cast<ucontext_t*>(c.uc), c.frames, c.depth);
  *first_out = first;
  if (first <= 0) recovery_counters().count_first_answer(first);
  if (const std::optional<jint> corrected = walk_from_real_frame_sp(c, first)) return *corrected;
  if (first > 0) {
    if (const std::optional<jint> described = describe_leaf_caller(c, first, coarse_top)) {
      if (*described > 0 && *c.physical_count == 0) return record_physical_frames(c, *described);
      return *described;
    }
    return record_physical_frames(c, first);
  }
  if (const std::optional<jint> walked = walk_from_anchor(c, first)) return *walked;
  if (!should_recover(c, first)) return first;
  if (c.range != nullptr && c.range->kind == CodeKind::kInterpreter) return recover_interpreter_entry(c, first);
  if (c.range != nullptr && c.range->safepoint_blob && c.at.pc == c.range->start) return recover_at_poll(c, first);
  return recover_from_caller(c, first);
}

}  // namespace

JVMKIT_SIGNAL_SAFE jint capture_with_recovery(hotspot::AsgctFunction asgct, JNIEnv* jni, void* ucontext,
                                              hotspot::AsgctFrame* frames, jint depth,
                                              const CodeSnapshotCell& code_snapshots, uintptr_t stack_top,
                                              PhysicalFrame* physical, int* physical_count, bool* coarse_top,
                                              Completeness* completeness, EntriesOut* entries) noexcept {
  JVMKIT_DCHECK(depth > 0);
  const auto* uc = static_cast<const ucontext_t*>(ucontext);
  const Regs at = regs_of(uc);
  CodeSnapshotCell::Reader reader(code_snapshots);
  const CodeSnapshot* code = reader.get();
  const Capture c{asgct, jni,       uc,       frames,         depth,        code,   code ? code->find(at.pc) : nullptr,
                  at,    stack_top, physical, physical_count, completeness, entries};
  *physical_count = 0;
  *completeness = Completeness::kUnchecked;
  *coarse_top = c.range != nullptr && c.range->kind == CodeKind::kNMethod && c.range->coarse_debug_info;
  jint first = 0;
  const jint result = capture_steps(c, coarse_top, &first);
  if (result <= 0 && failed_samples_kept()) {
    keep_failed_capture(FailedCapture{code, jni, c.range, at, stack_top, first, result});
  }
  return result;
}

}  // namespace jvmkit::walk
