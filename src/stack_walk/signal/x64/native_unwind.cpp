// SIGNAL CONTEXT (native_unwind.hpp). Reads stack words inside the bounds given, the immutable
// unwind tables and code snapshot, and code bytes of executable segments the tables list: without
// a check for the objects that are never unloaded, after the mincore system call says the page is
// mapped for the others (dlclose may unmap one before the watcher publishes tables without it).
// Calls nothing else but marked functions.
#include "stack_walk/signal/x64/native_unwind.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <vector>

#include "base/debug_check.hpp"
#include "stack_walk/signal/x64/instructions.hpp"

namespace jvmkit::walk {

namespace {

JVMKIT_SIGNAL_SAFE bool read_stack_word(const void* context, uintptr_t address, uintptr_t* value) noexcept {
  const auto* bounds = static_cast<const StackBounds*>(context);
  if (!bounds->holds(address)) return false;
  *value = load_word(address);
  return true;
}

JVMKIT_SIGNAL_SAFE NativeRunEnd end_for(native::LookupStatus status) noexcept {
  switch (status) {
    case native::LookupStatus::kNoModule:
      return NativeRunEnd::kUnknownCode;
    case native::LookupStatus::kUnprepared:
      return NativeRunEnd::kUnpreparedLibrary;
    case native::LookupStatus::kNoInfo:
      return NativeRunEnd::kNoUnwindInfo;
    default:
      return NativeRunEnd::kUnsupportedRule;
  }
}

JVMKIT_SIGNAL_SAFE NativeRunEnd end_for(native::StepResult result) noexcept {
  switch (result) {
    case native::StepResult::kOutermost:
      return NativeRunEnd::kOutermost;
    case native::StepResult::kNoInfo:
      return NativeRunEnd::kNoUnwindInfo;
    case native::StepResult::kUnreadable:
      return NativeRunEnd::kBadFrame;
    default:
      return NativeRunEnd::kUnsupportedRule;
  }
}

// The indirect calls through a SIB-addressed operand that compilers emit for C/C++ (a function
// pointer in a struct or vtable: "call [r12 + 8]" is 41 FF 54 24 08), which HotSpot's generated
// code does not use and follows_call leaves out: FF /2 with mod 00, 01 or 10 and r/m 100.
JVMKIT_SIGNAL_SAFE bool follows_sib_call(const CodeRange& text, uintptr_t ret) noexcept {
  if (ret < text.start + 7) return false;
  const auto* p = reinterpret_cast<const uint8_t*>(ret);
  if (p[-3] == 0xFF && p[-2] == 0x14 && (p[-1] & 7) != 5) return true;  // call [base + index*s]
  if (p[-4] == 0xFF && p[-3] == 0x54) return true;                      // ... + disp8
  return p[-7] == 0xFF && p[-6] == 0x94;                                // ... + disp32
}

// True when RET is a plausible return address: it follows a call instruction in the executable
// segment of a loaded object (whose bytes may be read). A word left on the stack by an earlier
// call, or a data word, almost never passes.
JVMKIT_SIGNAL_SAFE bool returns_from_call(const native::UnwindModule* module, uintptr_t ret) noexcept {
  // An object that may be unloaded: dlclose may have unmapped it since the tables were built (a
  // stale stack word pointing there). mincore fails with ENOMEM for unmapped pages.
  if (!module->stays_mapped) {
    unsigned char resident[2];
    const uintptr_t page = (ret - 7) & ~uintptr_t{4095};
    if (syscall(SYS_mincore, page, ret - page, resident) != 0) return false;
  }
  CodeRange text{};
  text.start = module->text_start;
  text.end = module->text_end;
  return follows_call(text, ret) || follows_sib_call(text, ret);
}

// The walk's state between two frames.
struct Cursor {
  native::FrameRegs regs;
  bool exact;
  bool in_java;  // regs.pc lies in the code cache
};

// The module whose code holds the return address RET (its call), or nullptr.
JVMKIT_SIGNAL_SAFE const native::UnwindModule* module_of_return(const native::NativeSnapshot& tables,
                                                                uintptr_t ret) noexcept {
  const std::vector<native::UnwindModule>& modules = tables.modules();
  return native::find_module(modules.data(), static_cast<uint32_t>(modules.size()), ret - 1);
}

// One frame: where its caller is. Returns false with *END when the run ends at this frame, and
// *END_PC set when it ends at a caller's return address that lies in no object the tables know
// (one loaded since they were built: the caller is not recorded, nothing about it is known).
JVMKIT_SIGNAL_SAFE bool step(const NativeUnwindContext& context, Cursor* cursor, NativeRunEnd* end,
                             uintptr_t* end_pc) noexcept {
  const native::FrameRegs& regs = cursor->regs;
  // A return address is looked up at the call, which may be the last instruction of a function.
  const native::RowLookup lookup = context.tables->lookup(cursor->exact ? regs.pc : regs.pc - 1);
  if (lookup.status != native::LookupStatus::kFound) {
    *end = end_for(lookup.status);
    return false;
  }
  const native::WordReader memory{read_stack_word, &context.bounds};
  const native::CallerLocation caller = native::evaluate(*lookup.row, regs, memory);
  if (caller.result != native::StepResult::kOk) {
    *end = end_for(caller.result);
    return false;
  }
  uintptr_t ret = 0;
  // The caller's frame lies above this one on the same stack (a signal frame's context too).
  if (caller.cfa < regs.sp + 8 || (caller.cfa & 7) != 0 || !context.bounds.holds(caller.cfa - 8) ||
      !read_stack_word(&context.bounds, caller.ra_slot, &ret)) {
    *end = NativeRunEnd::kBadFrame;
    return false;
  }
  if (ret == 0) {
    *end = NativeRunEnd::kOutermost;
    return false;
  }
  const bool into_java = context.in_code_cache(ret);
  // Java frames check their own call sites; the C frames' are checked here.
  if (!caller.signal_frame && !into_java) {
    const native::UnwindModule* module = module_of_return(*context.tables, ret);
    if (module == nullptr) {
      *end = NativeRunEnd::kUnknownCode;
      *end_pc = ret;
      return false;
    }
    if (!returns_from_call(module, ret)) {
      *end = NativeRunEnd::kBadFrame;
      return false;
    }
  }
  cursor->regs = native::FrameRegs{ret, caller.cfa, caller.caller_fp, caller.caller_fp_known, nullptr};
  cursor->exact = caller.signal_frame;
  cursor->in_java = into_java;
  return true;
}

}  // namespace

JVMKIT_SIGNAL_SAFE NativeRun unwind_native(const NativeUnwindContext& context, const NativeStart& start, uintptr_t* pcs,
                                           int max) noexcept {
  JVMKIT_DCHECK(context.tables != nullptr && max >= 0);
  NativeRun run;
  Cursor cursor{native::FrameRegs{start.regs.pc, start.regs.sp, start.regs.fp, true, start.gprs}, start.exact_pc,
                context.in_code_cache(start.regs.pc)};
  for (;;) {
    if (cursor.in_java) {
      run.end = NativeRunEnd::kJoin;
      run.join = Regs{cursor.regs.pc, cursor.regs.sp, cursor.regs.fp};
      run.join_exact = cursor.exact;
      return run;
    }
    if (run.count == max) {
      run.end = NativeRunEnd::kDepth;
      return run;
    }
    pcs[run.count++] = cursor.regs.pc | (cursor.exact ? kExactPcBit : 0);
    if (!step(context, &cursor, &run.end, &run.end_pc)) {
      // A PC of no known object is not a frame: nothing says it is native code.
      if (run.end == NativeRunEnd::kUnknownCode && run.end_pc == 0) run.end_pc = pcs[--run.count] & ~kExactPcBit;
      return run;
    }
  }
}

}  // namespace jvmkit::walk
