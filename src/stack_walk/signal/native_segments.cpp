// SIGNAL CONTEXT (native_segments.hpp). Reads stack words inside the thread's bounds (the call
// stub's saved rbp and return address) and what the native unwinder reads.
#include "stack_walk/signal/native_segments.hpp"

#include "stack_walk/signal/x64/native_unwind.hpp"

namespace jvmkit::walk {

namespace {

// Whether a segment that reached Java code at JOIN reached the Java frame below its entry, BELOW:
// the same code, at the SP its JavaCallWrapper saved, or up to two words under it for HotSpot's
// call_VM shapes (native_capture.cpp, joins_anchor).
JVMKIT_SIGNAL_SAFE bool reaches_below(const CodeSnapshot& code, const Regs& join, const Regs& below) noexcept {
  if (code.find(join.pc) != code.find(below.pc)) return false;
  if (join.sp == below.sp) return true;
  return join.sp < below.sp && below.sp - join.sp <= 16 && (join.sp & 15) == 0;
}

// One entry's segment: the call stub's PC, then the frames from its caller (JavaCalls::call_helper),
// whose frame the stub's rbp frame gives: return address at [rbp + 8], SP rbp + 16, rbp at [rbp].
JVMKIT_SIGNAL_SAFE NativeSegment unwind_segment(const NativeUnwindContext& context, const EntryFrame& entry,
                                                uintptr_t* pcs, int room) noexcept {
  NativeSegment segment;
  segment.before = entry.next_frame;
  if (room < 1) return segment;  // end kDepth
  pcs[segment.count++] = entry.stub.pc;
  const uintptr_t fp = entry.stub.fp;
  if (!context.bounds.holds(fp) || !context.bounds.holds(fp + 8)) {
    segment.end = NativeRunEnd::kBadFrame;
    return segment;
  }
  const NativeStart caller{Regs{load_word(fp + 8), fp + 16, load_word(fp)}, nullptr, false};
  const NativeRun run = unwind_native(context, caller, pcs + 1, room - 1);
  segment.count += run.count;
  segment.end = run.end;
  segment.end_pc = run.end_pc;
  if (entry.first) {
    segment.complete = run.end == NativeRunEnd::kOutermost;
    segment.mismatch = run.end == NativeRunEnd::kJoin;  // Java code below the thread's first entry?
  } else {
    segment.complete = run.end == NativeRunEnd::kJoin && reaches_below(*context.code, run.join, entry.below);
    segment.mismatch = run.end == NativeRunEnd::kJoin && !segment.complete;
  }
  return segment;
}

}  // namespace

JVMKIT_SIGNAL_SAFE void capture_segments(const NativeUnwindContext& context, const EntriesOut& entries,
                                         Request* request) noexcept {
  NativePart& part = request->native;
  if (request->num_frames <= 0 || request->completeness != Completeness::kProven || entries.overflow) return;
  int used = part.kernel_count + part.run_count;
  for (int i = 0; i < entries.count && part.segment_count < kMaxNativeSegments; i++) {
    NativeSegment segment = unwind_segment(context, entries.frames[i], part.pcs + used, kMaxNativeFrames - used);
    segment.first = used;
    used += segment.count;
    part.segments[part.segment_count++] = segment;
  }
}

}  // namespace jvmkit::walk
