// The template interpreter's method entries, and where the caller of a method being entered is.
//
// A method called in the interpreter starts in one of its method entries (HotSpot's
// generate_normal_entry and generate_native_entry: "zerolocals", "native" and their synchronized
// kinds). Until the entry has built the method's fixed frame, AsyncGetCallTrace cannot describe the
// top frame and fails (not_walkable_Java): measured 2026-12-04 on JDK 17, 30 of 33 failed walks in
// a JIT-heavy warm-up were in the first instructions of the "zerolocals" entry and in the pushes of
// its fixed frame. The method is known (the entry keeps the Method* in rbx throughout), and so is
// its caller; each entry moves the return address the same way:
//
//   [begin, pop]        stack check          return address at [rsp]; rbp the caller's
//   (pop, push_return]  "pop rax", locals    return address in rax
//   push_return + 1     "push rbp"           at [rsp]
//   push_return + 2     "mov rbp, rsp"       at [rsp + 8], the caller's rbp at [rsp]
//   [frame_made, fixed_end)  fixed frame     at [rbp + 8], the caller's rbp at [rbp]
//
// and the caller's SP (its "sender SP") is in r13 until the entry saves it at [rbp - 8].
//
// The entries are found off the signal path, by the shape of their code inside the interpreter's
// codelets that the JVM itself names "method entry point" (hotspot/interpreter_codelets.hpp); an
// entry whose shape is not recognised is left out, and its samples stay failed.
#pragma once

#include <ucontext.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "base/signal_safe.hpp"
#include "stack_walk/signal/x64/frame.hpp"

namespace jvmkit::walk {

struct InterpreterEntry {
  uintptr_t begin;           // the codelet's first code byte
  uintptr_t pop;             // "pop rax; lea r14, [rsp + rcx*8 - 8]": the return address leaves the stack
  uintptr_t overflow_begin;  // the stack-overflow exit before POP ("pop rax; mov rsp, r13; push rax"), or 0
  uintptr_t push_return;     // "push rax; push rbp; mov rbp, rsp": the return address goes back
  uintptr_t frame_made;      // the instruction after that "mov rbp, rsp"
  uintptr_t fixed_end;       // "mov byte [r15 + disp32], 1" (do_not_unlock_if_synchronized): frame complete
  bool native_call;          // the entry of native methods: two slots for the native call ("push 0" twice)
                             // between POP and PUSH_RETURN instead of the zeroed locals
};

// Reads the entry's shape from its code (SIZE bytes at CODE, mapped at ADDRESS), or nothing when
// the code does not have it. Not signal context; pure (unit tests feed it byte sequences).
std::optional<InterpreterEntry> scan_interpreter_entry(const uint8_t* code, size_t size, uintptr_t address);

constexpr int kMaxInterpreterEntries = 8;
struct InterpreterEntries {
  int count = 0;
  InterpreterEntry entries[kMaxInterpreterEntries] = {};
};

// Finds the running JVM's entries (once its interpreter exists; later calls return at once) and
// publishes them for known_interpreter_entries. Not signal context.
void learn_interpreter_entries();
// SIGNAL SAFE. The entries once learnt, else nullptr.
JVMKIT_SIGNAL_SAFE const InterpreterEntries* known_interpreter_entries() noexcept;

// The registers an entry keeps its state in.
struct EntryRegs {
  uintptr_t pc, sp, fp;
  uintptr_t rax, rbx, r13;
};
JVMKIT_SIGNAL_SAFE EntryRegs entry_regs_of(const ucontext_t* uc) noexcept;

// SIGNAL SAFE. When AT.pc lies in one of ENTRIES before the fixed frame is complete: the caller's
// registers (its PC a return address, not yet checked against known code) and the Method* being
// entered, reading the stack only inside B. False otherwise.
struct EntryCaller {
  Regs caller;
  uintptr_t method;
  bool native;  // the method is native (its entry is a native method entry)
};
JVMKIT_SIGNAL_SAFE bool interpreter_entry_caller(const InterpreterEntries& entries, const EntryRegs& at,
                                                 const StackBounds& b, EntryCaller* out) noexcept;

}  // namespace jvmkit::walk
