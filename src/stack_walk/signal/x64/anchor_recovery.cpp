// SIGNAL CONTEXT. May call: capture_at_anchor and what it calls (at_call.hpp), the JavaThread
// layout's anchor reader, CodeHeapLayout::in_code_heaps, the recovery counters.
#include "stack_walk/signal/x64/anchor_recovery.hpp"

#include "hotspot/code_heap.hpp"
#include "hotspot/java_thread.hpp"
#include "stack_walk/signal/x64/at_call.hpp"
#include "stack_walk/signal/x64/recovery.hpp"

namespace jvmkit::walk {

namespace {

JVMKIT_SIGNAL_SAFE bool entering_vm_from_java(const Capture& c, jint first) noexcept {
  if (first != hotspot::asgct::kUnknownJava && first != hotspot::asgct::kNotWalkableJava) return false;
  if (c.range != nullptr) return false;
  const hotspot::CodeHeapLayout* heaps = hotspot::known_code_heap_layout();
  return heaps != nullptr && !heaps->in_code_heaps(c.at.pc);
}

}  // namespace

JVMKIT_SIGNAL_SAFE std::optional<jint> walk_from_anchor(const Capture& c, jint first) noexcept {
  if (first != hotspot::asgct::kUnknownNotJava && first != hotspot::asgct::kNotWalkableNotJava &&
      first != hotspot::asgct::kGcActive && first != hotspot::asgct::kDeopt && !entering_vm_from_java(c, first)) {
    return std::nullopt;
  }
  if (c.code == nullptr || c.jni == nullptr || !c.stack_known()) return std::nullopt;
  const hotspot::JavaThreadLayout* layout = hotspot::known_java_thread_layout();
  if (layout == nullptr || layout->last_java_frame(c.jni).sp == 0) return std::nullopt;  // no Java frame below
  RecoveryCounters& rc = recovery_counters();
  rc.attempted.fetch_add(1, std::memory_order_relaxed);
  const AtCallCapture walked = capture_at_anchor(c.jni, c.frames, c.depth, *c.code, c.stack_top, c.physical, c.entries);
  if (walked.result <= 0) {
    rc.unrecovered[JVMKIT_UNRECOVERED_NO_CALLER].fetch_add(1, std::memory_order_relaxed);
    return first;
  }
  *c.physical_count = walked.physical_count;
  *c.completeness = walked.completeness;
  const bool deoptimizing = first == hotspot::asgct::kDeopt;
  rc.recovered[deoptimizing ? JVMKIT_RECOVERY_DEOPTIMIZED : JVMKIT_RECOVERY_VM_ANCHOR].fetch_add(
      1, std::memory_order_relaxed);
  return walked.result;
}

}  // namespace jvmkit::walk
