// SIGNAL CONTEXT (see failed_capture.hpp).
#include "stack_walk/signal/x64/failed_capture.hpp"

#include "hotspot/java_thread.hpp"
#include "stack_walk/signal/failed_samples.hpp"
#include "stack_walk/signal/x64/java_frames.hpp"
#include "stack_walk/signal/x64/physical_walk.hpp"

namespace jvmkit::walk {

JVMKIT_SIGNAL_SAFE void keep_failed_capture(const FailedCapture& c) noexcept {
  FailedSample sample{c.at.pc, c.at.sp, 0, 0, c.first, c.final};
  if (c.range != nullptr) {
    sample.known = true;
    sample.kind = c.range->kind;
    sample.name = c.range->name;
  }
  const hotspot::JavaThreadLayout* layout = hotspot::known_java_thread_layout();
  if (layout == nullptr || c.jni == nullptr || c.code == nullptr) {
    keep_failed_sample(sample);
    return;
  }
  const hotspot::LastJavaFrame last = layout->last_java_frame(c.jni);
  sample.anchor_sp = last.sp;
  // No PC recorded: the word below the anchor's SP, where it lies on this thread's stack.
  const bool readable = last.sp >= c.at.sp + 8 && last.sp < c.stack_top;
  sample.anchor_pc = last.pc == 0 && readable ? load_word(last.sp - 8) : last.pc;
  if (const CodeRange* anchor = sample.anchor_pc != 0 ? c.code->find(sample.anchor_pc) : nullptr) {
    sample.anchor_known = true;
    sample.anchor_kind = anchor->kind;
    sample.anchor_name = anchor->name;
  }
  sample.poll_pc = layout->saved_exception_pc_of(c.jni);
  const CodeRange* poll = c.code->find(sample.poll_pc);
  sample.poll_in_nmethod = poll != nullptr && poll->kind == CodeKind::kNMethod;
  Regs top{};
  sample.first_java_frame = c.stack_top > c.at.sp && anchor_frame(*c.code, c.jni, c.at.sp, c.stack_top, &top);
  if (sample.first_java_frame) {
    const JavaWalkEnd end = walk_java_frames(*c.code, top, walk_bounds(top, c.stack_top), c.stack_top, true,
                                             Describe::kAll, [&](const CodeRange& range, const VirtualFrames& virt) {
                                               sample.walk_frames++;
                                               sample.walk_last_kind = range.kind;
                                               sample.walk_last_known = virt.known;
                                               return virt.known;
                                             });
    sample.walk_end = static_cast<int>(end);
  }
  keep_failed_sample(sample);
}

}  // namespace jvmkit::walk
