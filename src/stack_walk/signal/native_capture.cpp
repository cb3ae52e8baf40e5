// SIGNAL CONTEXT (native_capture.hpp). May call: the native unwinder (native_unwind.hpp), the
// snapshot cells' readers, two loads from the current thread's HotSpot Thread (stack bounds,
// frame anchor: through the layout checked at Enable) and the gettid system call (once per thread).
#include "stack_walk/signal/native_capture.hpp"

#include <ucontext.h>

#include "base/thread_id.hpp"
#include "hotspot/java_thread.hpp"
#include "native/unwind_table.hpp"
#include "stack_walk/native/native_counters.hpp"
#include "stack_walk/native/native_tables.hpp"
#include "stack_walk/signal/native_segments.hpp"
#include "stack_walk/signal/x64/at_call.hpp"
#include "stack_walk/signal/x64/leaf_call.hpp"
#include "stack_walk/signal/x64/native_unwind.hpp"
#include "stack_walk/signal/x64/physical_walk.hpp"
#include "stack_walk/signal/x64/recovery.hpp"

namespace jvmkit::walk {

namespace {

// The current thread's stack: its JavaThread's (JNI), else its HotSpot Thread's.
JVMKIT_SIGNAL_SAFE StackBounds current_stack(JNIEnv* jni) noexcept {
  const hotspot::JavaThreadLayout* layout = hotspot::known_java_thread_layout();
  if (layout == nullptr) return {};
  const hotspot::StackRange range =
      jni != nullptr ? layout->stack_of(jni) : hotspot::current_hotspot_thread_stack(*layout);
  return StackBounds{range.lo, range.hi};
}

// Copies the kernel PCs the caller passed (checked by the API: at most JVMKIT_MAX_KERNEL_FRAMES).
JVMKIT_SIGNAL_SAFE void copy_kernel(const NativeAsk& ask, NativePart* part) noexcept {
  for (int i = 0; i < ask.kernel_count; i++) part->pcs[i] = static_cast<uintptr_t>(ask.kernel_pcs[i]);
  part->kernel_count = ask.kernel_count;
}

// A run that reached Java code joins the Java frames only where the thread's frame anchor says
// its last Java frame is (when the thread is outside Java code and HotSpot set the anchor). The
// unwound SP J is the anchor's SP A, or up to two words below it, put there by HotSpot's calls
// into the VM after they set the anchor: MacroAssembler::call_VM makes an intermediate call (its
// return address, into the code cache, at A - 8), and call_VM_leaf_base aligns an unaligned SP
// with "sub rsp, 8". The call into the VM is made with an aligned SP (the ABI), so J is 16-aligned
// then; a word at A - 8 that is not padding must return into the code cache.
JVMKIT_SIGNAL_SAFE bool joins_anchor(JNIEnv* jni, const NativeRun& run, const NativeUnwindContext& context,
                                     NativePart* part) noexcept {
  const StackBounds& bounds = context.bounds;
  if (jni == nullptr) return false;
  const hotspot::JavaThreadLayout* layout = hotspot::known_java_thread_layout();
  if (layout == nullptr) return true;  // no anchor known: nothing contradicts the run
  const hotspot::LastJavaFrame anchor = layout->last_java_frame(jni);
  part->join_pc = run.join.pc;
  part->join_sp = run.join.sp;
  part->anchor_sp = anchor.sp;
  part->anchor_pc = anchor.pc;
  const uintptr_t a = anchor.sp, j = run.join.sp;
  if (a == 0 || a == j) return true;
  if (j > a || a - j > 16 || (j & 15) != 0 || !bounds.holds(a - 8)) return false;
  const bool padding_only = a - j == 8 && (a & 15) == 8;
  return padding_only || context.in_code_cache(load_word(a - 8));
}

// What the capture reads, taken once: the tables, the code map, HotSpot's code heaps and the
// thread's stack.
struct Sources {
  const native::NativeSnapshot* tables;  // nullptr: not prepared yet
  const CodeSnapshot* code;              // nullptr: no code map yet
  StackBounds bounds;                    // hi 0: unknown
  uintptr_t code_heap_lo, code_heap_hi;  // 0, 0: unknown

  JVMKIT_SIGNAL_SAFE NativeUnwindContext context() const noexcept {
    return NativeUnwindContext{tables, code, bounds, code_heap_lo, code_heap_hi};
  }
};

// HotSpot's code heaps' bounds, read from its static fields (plain loads of libjvm's data).
JVMKIT_SIGNAL_SAFE void read_code_heap(const CaptureState& state, Sources* in) noexcept {
  const uintptr_t* low = state.code_heap_low.load(std::memory_order_acquire);
  const uintptr_t* high = state.code_heap_high.load(std::memory_order_acquire);
  in->code_heap_lo = in->code_heap_hi = 0;
  if (low == nullptr || high == nullptr) return;
  const uintptr_t lo = *low, hi = *high;
  if (lo != 0 && hi > lo) {
    in->code_heap_lo = lo;
    in->code_heap_hi = hi;
  }
}

// The run itself, from START, into the slot after the kernel PCs. Returns where it ended.
JVMKIT_SIGNAL_SAFE NativeRun unwind_run(const Sources& in, JNIEnv* jni, const NativeStart& start,
                                        NativePart* part) noexcept {
  uintptr_t* pcs = part->pcs + part->kernel_count;
  const int room = kMaxNativeFrames - part->kernel_count;
  const bool in_java = in.context().in_code_cache(start.regs.pc);
  if (in.tables == nullptr || in.bounds.hi == 0) {
    // Nothing to unwind with: the interrupted PC alone (unless it is Java code), then a marker.
    if (!in_java && room > 0) pcs[part->run_count++] = start.regs.pc | (start.exact_pc ? kExactPcBit : 0);
    part->no_stack_bounds = in.bounds.hi == 0;
    part->run_end = in_java ? NativeRunEnd::kJoin : NativeRunEnd::kUnpreparedLibrary;
    return NativeRun{};
  }
  const NativeRun run = unwind_native(in.context(), start, pcs, room);
  part->run_count = run.count;
  part->run_end = run.end;
  part->end_pc = run.end_pc;
  part->join_mismatch = run.end == NativeRunEnd::kJoin && run.count > 0 && !joins_anchor(jni, run, in.context(), part);
  // Native code called from a stub of HotSpot's (a runtime stub: C2's _new_array_Java, C1's
  // new_instance): the stub is a frame of the JVM's between them and the Java frames.
  if (run.end == NativeRunEnd::kJoin && run.count > 0 && run.count < room) {
    const CodeRange* stub = in.code != nullptr ? in.code->find(run.join.pc) : nullptr;
    if (stub != nullptr && stub->kind == CodeKind::kStub && !stub->call_stub) pcs[part->run_count++] = run.join.pc;
  }
  return run;
}

// The compiled frame that called the code-cache stub the native run joined at (*JOIN: the stub's
// PC, SP and rbp), when the stub keeps an rbp frame: HotSpot's generated stubs begin with
// "enter" (push rbp; mov rbp, rsp), some after pushing one word of their own (the nmethod entry
// barrier's deoptimization cookie). The return address is the first of [rbp + 8] and [rbp + 16]
// that returns into an nmethod right after a call; the caller's SP lies just above it.
JVMKIT_SIGNAL_SAFE bool stub_caller(const Sources& in, Regs* join) noexcept {
  const uintptr_t fp = join->fp;
  if (fp < join->sp || !in.bounds.holds(fp) || !in.bounds.holds(fp + 16)) return false;
  for (uintptr_t slot = fp + 8; slot <= fp + 16; slot += 8) {
    const uintptr_t ret = load_word(slot);
    const CodeRange* range = in.code->find(ret);
    if (range == nullptr || range->kind != CodeKind::kNMethod || !plausible_return(*in.code, ret)) continue;
    *join = Regs{ret, slot + 8, load_word(fp)};
    return true;
  }
  return false;
}

// A leaf call of compiled code into the VM's C++ (a GC barrier's slow path: G1's SATB enqueue,
// ZGC's store barrier; os::javaTimeNanos): the thread is still "in Java", its frame anchor empty,
// and AsyncGetCallTrace had to find the compiled caller on its own, through the frame-pointer
// chain, which C2's frames do not keep (measured: a trace of one Java frame, or callers from stale
// stack words). The native run reached that caller exactly (its CFA and return address): the Java
// frames are walked again from there, as from a compiled frame interrupted at the call (the
// call's own debug record, leaf_call.hpp). A walk that fails from there fails the trace: the
// first answer was a guess.
JVMKIT_SIGNAL_SAFE void java_part_from_leaf_join(const CaptureState& state, const Sources& in, JNIEnv* jni,
                                                 const ucontext_t* uc, const NativeRun& run, Request* request,
                                                 EntriesOut* entries) noexcept {
  const NativePart& part = request->native;
  if (jni == nullptr || uc == nullptr || in.code == nullptr || request->kind != RequestKind::kCaptured ||
      part.run_end != NativeRunEnd::kJoin || part.run_count == 0 || run.join_exact || part.join_mismatch ||
      part.no_stack_bounds || part.anchor_sp != 0) {
    return;
  }
  Regs join = run.join;
  const CodeRange* caller = in.code->find(join.pc);
  // A stub between (the nmethod entry barrier's, which the compiled prologue calls): through its
  // rbp frame to the compiled caller.
  if (caller != nullptr && caller->kind == CodeKind::kStub && !caller->call_stub && !stub_caller(in, &join)) return;
  caller = in.code->find(join.pc);
  if (caller == nullptr || caller->kind != CodeKind::kNMethod || !in.bounds.holds(join.sp)) return;
  const CodeSnapshotCell* code_map = state.code_map.load(std::memory_order_acquire);
  if (code_map == nullptr) return;
  // Called from a barrier stub that spilled registers: the frame's SP is above the call's.
  const uintptr_t frame_sp = join.sp + leaf_call_spill(*in.code, *caller, in.bounds, join.pc, join.sp);
  ucontext_t at_call = *uc;
  at_call.uc_mcontext.gregs[REG_RIP] = static_cast<greg_t>(asgct_pc_for_return_address(join.pc));
  at_call.uc_mcontext.gregs[REG_RSP] = static_cast<greg_t>(frame_sp);
  at_call.uc_mcontext.gregs[REG_RBP] = static_cast<greg_t>(join.fp);
  if (entries != nullptr) {
    entries->count = 0;
    entries->overflow = false;
  }
  const jint depth = state.pool.load(std::memory_order_acquire)->capture_depth();
  request->num_frames = capture_with_recovery(
      state.asgct.load(std::memory_order_relaxed), jni, &at_call, request->frames, depth, *code_map, in.bounds.hi,
      request->physical, &request->physical_count, &request->coarse_top, &request->completeness, entries);
}

// A thread without Java frames (HotSpot's own, or a Java thread before its first Java call) whose
// PC is in the code cache: a stub the VM called (e.g. ICache::flush_icache_stub). Its stub has no
// call-frame information, so the trace is that PC, as a JVM frame, and a marker.
JVMKIT_SIGNAL_SAFE void stub_top_without_java(const NativeStart& start, Request* request) noexcept {
  NativePart* part = &request->native;
  if (!part->no_java_frames || part->run_count != 0 || part->run_end != NativeRunEnd::kJoin ||
      part->kernel_count >= kMaxNativeFrames) {
    return;
  }
  part->pcs[part->kernel_count] = start.regs.pc | (start.exact_pc ? kExactPcBit : 0);
  part->run_count = 1;
  part->run_end = NativeRunEnd::kNoUnwindInfo;
}

// A Java thread inside the VM (the allocation slow path, class loading, a safepoint): its sample
// is one AsyncGetCallTrace refuses (the anchor is not walkable while the VM runs), but the native
// run reached the anchor's Java frame, which proves the anchor is this moment's. Its Java frames
// are then walked from the anchor, as HotSpot itself would walk them.
JVMKIT_SIGNAL_SAFE void java_part_from_anchor(const Sources& in, JNIEnv* jni, jint depth, Request* request,
                                              EntriesOut* entries) noexcept {
  const NativePart& part = request->native;
  const bool refused = request->num_frames == hotspot::asgct::kUnknownNotJava ||
                       request->num_frames == hotspot::asgct::kNotWalkableNotJava;
  if (jni == nullptr || in.code == nullptr || request->kind != RequestKind::kCaptured || !refused ||
      part.run_end != NativeRunEnd::kJoin || part.join_mismatch || part.no_stack_bounds) {
    return;
  }
  const AtCallCapture captured =
      capture_at_anchor(jni, request->frames, depth, *in.code, in.bounds.hi, request->physical, entries);
  if (captured.result <= 0) return;
  request->num_frames = captured.result;
  request->physical_count = captured.physical_count;
  request->completeness = captured.completeness;
  request->native.java_from_anchor = true;
}

// Whether the thread has no Java frames at all: HotSpot's own thread, or one AsyncGetCallTrace
// found outside Java code with no last Java frame in its anchor.
JVMKIT_SIGNAL_SAFE bool without_java_frames(JNIEnv* jni, const Request& request) noexcept {
  if (jni == nullptr) return true;
  const jint asgct = request.num_frames;
  return request.native.anchor_sp == 0 &&
         (asgct == hotspot::asgct::kNoJavaFrame || asgct == hotspot::asgct::kUnknownNotJava ||
          asgct == hotspot::asgct::kNotWalkableNotJava);
}

}  // namespace

JVMKIT_SIGNAL_SAFE void capture_native(const CaptureState& state, const NativeAsk& ask, JNIEnv* jni,
                                       const ucontext_t* uc, Request* request, EntriesOut* entries) noexcept {
  NativePart* part = &request->native;
  part->requested = true;
  part->callback = ask.callback;
  part->tid = cached_current_tid();
  part->native_only = jni == nullptr;
  part->captured = true;
  copy_kernel(ask, part);
  uint64_t gprs[native::kDwarfGprCount];
  NativeStart start{ask.caller, nullptr, false};
  if (uc != nullptr) {
    native::dwarf_gprs_of(uc, gprs);
    start = NativeStart{regs_of(uc), gprs, true};
  }
  native::NativeSnapshotCell::Reader tables(*state.native_tables.load(std::memory_order_acquire));
  CodeSnapshotCell::Reader code(*state.code_map.load(std::memory_order_acquire));
  Sources in{tables.get(), code.get(), current_stack(jni), 0, 0};
  read_code_heap(state, &in);
  const NativeRun run = unwind_run(in, jni, start, part);
  // Code of no prepared object: most often a library loaded a moment ago.
  if (part->run_end == NativeRunEnd::kUnknownCode) wake_native_watcher();
  if (jni != nullptr && part->anchor_sp == 0) {
    // Whether the thread was outside Java code (its anchor set), for the delivery's reading of a
    // run that ended at unknown code.
    const hotspot::JavaThreadLayout* layout = hotspot::known_java_thread_layout();
    if (layout != nullptr) part->anchor_sp = layout->last_java_frame(jni).sp;
  }
  const jint depth = state.pool.load(std::memory_order_acquire)->capture_depth();
  java_part_from_anchor(in, jni, depth, request, entries);
  java_part_from_leaf_join(state, in, jni, uc, run, request, entries);
  part->no_java_frames = without_java_frames(jni, *request);
  stub_top_without_java(start, request);
  if (entries != nullptr && in.tables != nullptr && in.code != nullptr && in.bounds.hi != 0) {
    capture_segments(in.context(), *entries, request);
  }
  native_counters().count_request(part->native_only);
  native_counters().count_run(part->run_end);
}

}  // namespace jvmkit::walk
