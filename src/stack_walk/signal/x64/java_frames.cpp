// SIGNAL CONTEXT (see java_frames.hpp for what this file may call).
#include "stack_walk/signal/x64/java_frames.hpp"

#include "base/debug_check.hpp"
#include "hotspot/java_thread.hpp"

namespace jvmkit::walk {

namespace {

// x86-64 interpreter frame slots, in words from its rbp (HotSpot's frame_x86.hpp).
constexpr intptr_t kInterpreterMethodSlot = -3;
constexpr intptr_t kInterpreterBcpSlot = -8;

// x86-64 (not Windows) call stub frame: its JavaCallWrapper* lies 6 words below its rbp (HotSpot's
// frame::entry_frame_call_wrapper_offset).
constexpr intptr_t kCallWrapperSlot = -6;

}  // namespace

JVMKIT_SIGNAL_SAFE bool describe_java_frame(const CodeRange& r, const Regs& at, const StackBounds& bounds,
                                            const hotspot::MethodLayout* methods, Describe how,
                                            VirtualFrames* out) noexcept {
  if (r.kind == CodeKind::kNMethod && r.native_wrapper) {
    out->one = hotspot::AsgctFrame{hotspot::kAsgctNativeBci, r.method};
    out->frames = &out->one;
    out->count = 1;
    return true;
  }
  if (r.kind == CodeKind::kNMethod) {
    out->frames =
        r.call_sites != nullptr ? r.call_sites->find(static_cast<uint32_t>(at.pc - r.start), &out->count) : nullptr;
    return out->frames != nullptr;
  }
  const uintptr_t method_slot = at.fp + 8 * kInterpreterMethodSlot, bcp_slot = at.fp + 8 * kInterpreterBcpSlot;
  if (!bounds.holds(method_slot) || !bounds.holds(bcp_slot)) return false;
  if (how == Describe::kAllButInterpreted) {
    out->frames = nullptr;
    out->count = 1;
    return true;
  }
  JVMKIT_DCHECK(methods != nullptr);  // Describe::kAll: the walk checked it
  const uintptr_t method = load_word(method_slot);
  const jmethodID id = method != 0 ? methods->method_id(method) : nullptr;
  const uintptr_t bcp = load_word(bcp_slot);
  // A native method run by the interpreter's native entry has no bytecodes: its bcp slot holds 0,
  // or, once the entry saved its bytecode-pointer register for a call into the VM, the start of its
  // empty code.
  const bool native = method != 0 && (bcp == 0 || !methods->has_bytecodes(method));
  const jint bci = method != 0 && !native ? methods->bci(method, bcp) : -1;
  if (id == nullptr || (!native && bci < 0)) return false;
  out->one = hotspot::AsgctFrame{native ? hotspot::kAsgctNativeBci : bci, id};
  out->frames = &out->one;
  out->count = 1;
  return true;
}

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

}  // namespace jvmkit::walk
