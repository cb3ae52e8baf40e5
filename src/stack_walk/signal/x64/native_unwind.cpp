// SIGNAL CONTEXT (native_unwind.hpp). Reads stack words inside the bounds given, the immutable
// unwind tables and code snapshot, and code bytes of executable segments the tables list: without
// a check for the objects that are never unloaded, after the mincore system call says the page is
// mapped for the others (dlclose may unmap one before the watcher publishes tables without it).
// Calls nothing else but marked functions.
#include "stack_walk/signal/x64/native_unwind.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
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

// True when the 7 code bytes before RET (a word that should be a return address into MODULE's
// executable segment) may be read: always for an object that stays mapped; for one that may be
// unloaded, dlclose may have unmapped it since the tables were built (a stale stack word pointing
// there), and mincore fails with ENOMEM for unmapped pages.
JVMKIT_SIGNAL_SAFE bool call_bytes_mapped(const native::UnwindModule* module, uintptr_t ret) noexcept {
  if (module->stays_mapped) return true;
  unsigned char resident[2];
  const uintptr_t page = (ret - 7) & ~uintptr_t{4095};
  return syscall(SYS_mincore, page, ret - page, resident) == 0;
}

// True when RET is a plausible return address: it follows a call instruction in the executable
// segment of a loaded object (whose bytes may be read). A word left on the stack by an earlier
// call, or a data word, almost never passes.
JVMKIT_SIGNAL_SAFE bool returns_from_call(const native::UnwindModule* module, uintptr_t ret) noexcept {
  if (!call_bytes_mapped(module, ret)) return false;
  CodeRange text{};
  text.start = module->text_start;
  text.end = module->text_end;
  return follows_call(text, ret) || follows_sib_call(text, ret);
}

// The target of the direct call (E8 rel32) that RET, a word in MODULE's executable segment,
// returns from; false when the 5 bytes before RET are not one (or lie outside the segment).
JVMKIT_SIGNAL_SAFE bool direct_call_target(const native::UnwindModule* module, uintptr_t ret,
                                           uintptr_t* target) noexcept {
  if (ret < module->text_start + 5 || ret > module->text_end || !call_bytes_mapped(module, ret)) return false;
  const auto* p = reinterpret_cast<const uint8_t*>(ret);
  if (p[-5] != 0xE8) return false;
  int32_t rel32;
  std::memcpy(&rel32, p - 4, sizeof(rel32));
  *target = ret + static_cast<uintptr_t>(static_cast<intptr_t>(rel32));
  return true;
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

// The interrupted frame whose PC no CFI covers (LOOKUP: kNoInfo in a prepared object): hand-written
// assembly without call-frame information, such as libjvm's SpinPause and _Copy_* routines. Taken
// as a frameless leaf (CFA = rsp + 8, the return address at [rsp], rbp unchanged) only when that is
// proven: the word at [rsp] returns from a direct call (E8 rel32) in the same object's code, whose
// target lies at or below the PC in the same gap without CFI, with no FDE starting in between: the
// call entered the code that holds the PC, and the leaf pushed nothing (a word it pushed is no such
// return address, unless it is one of a direct call to other code earlier in the same gap, which
// hand-written leaves do not push). rbp is callee-saved: a leaf that pushed nothing did not change
// it. An indirect call, a tail call, a leaf that pushed a word or moved rsp: false, and the run
// ends with kNoUnwindInfo as before.
JVMKIT_SIGNAL_SAFE bool frameless_leaf(const NativeUnwindContext& context, const native::RowLookup& lookup,
                                       Cursor* cursor) noexcept {
  const native::FrameRegs& regs = cursor->regs;
  const native::UnwindModule* module = lookup.module;
  uintptr_t ret = 0;
  if (!read_stack_word(&context.bounds, regs.sp, &ret) || ret == 0 || context.in_code_cache(ret)) return false;
  const native::UnwindModule* caller = module_of_return(*context.tables, ret);
  uintptr_t target = 0;
  if (caller == nullptr || caller->object != module->object || !direct_call_target(caller, ret, &target)) {
    return false;
  }
  // The callee: in the leaf's own segment, at or below the PC, in the same gap (no row starts
  // between them: the row at the target is the PC's kNoInfo row) and no FDE (an empty one) either.
  if (target < module->text_start || target > regs.pc) return false;
  const auto target_offset = static_cast<uint32_t>(target - module->bias);
  const auto pc_offset = static_cast<uint32_t>(regs.pc - module->bias);
  if (native::find_module_row(*module, target_offset) != lookup.row ||
      native::function_start_between(*module, target_offset, pc_offset)) {
    return false;
  }
  cursor->regs = native::FrameRegs{ret, regs.sp + 8, regs.fp, regs.fp_known, nullptr};
  cursor->exact = false;
  cursor->in_java = false;
  return true;
}

// One frame: where its caller is. Returns false with *END when the run ends at this frame, and
// *END_PC set when it ends at a caller's return address that lies in no object the tables know
// (one loaded since they were built: the caller is not recorded, nothing about it is known).
// LEAF: the frame is the one the signal interrupted, the first of the run.
JVMKIT_SIGNAL_SAFE bool step(const NativeUnwindContext& context, Cursor* cursor, bool leaf, NativeRunEnd* end,
                             uintptr_t* end_pc) noexcept {
  const native::FrameRegs& regs = cursor->regs;
  // A return address is looked up at the call, which may be the last instruction of a function.
  const native::RowLookup lookup = context.tables->lookup(cursor->exact ? regs.pc : regs.pc - 1);
  if (lookup.status != native::LookupStatus::kFound) {
    if (leaf && lookup.status == native::LookupStatus::kNoInfo && frameless_leaf(context, lookup, cursor)) return true;
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
    const bool leaf = run.count == 1 && start.exact_pc;
    if (!step(context, &cursor, leaf, &run.end, &run.end_pc)) {
      // A PC of no known object is not a frame: nothing says it is native code.
      if (run.end == NativeRunEnd::kUnknownCode && run.end_pc == 0) run.end_pc = pcs[--run.count] & ~kExactPcBit;
      return run;
    }
  }
}

}  // namespace jvmkit::walk
