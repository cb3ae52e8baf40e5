// Where libjvm's and libc's code is, and the signal frames glibc's trampoline leaves, for the
// unwinding of native frames in a capture (SIGNAL CONTEXT readers; the code learnt off the signal
// path, at Enable).
#pragma once

#include <cstdint>

#include "base/signal_safe.hpp"
#include "stack_walk/code_map.hpp"
#include "stack_walk/signal/x64/frame.hpp"

namespace jvmkit::walk {

// Learns the executable segments of libjvm and libc (once per process: they are never unloaded).
// Not signal context: call before the capture may need it (Enable).
void learn_native_text();

// True when PC lies in one of those segments; *OUT then spans that segment (a CodeRange with no
// kind), so that its bytes may be read.
JVMKIT_SIGNAL_SAFE bool in_native_text(uintptr_t pc, CodeRange* out) noexcept;

// glibc's signal trampoline (__restore_rt): "mov rax, 15 (rt_sigreturn); syscall". A return
// address RET in TEXT pointing at it means the frame below is a signal handler's, and the
// interrupted context is the ucontext the kernel put just above the return slot.
JVMKIT_SIGNAL_SAFE bool is_sigreturn(const CodeRange& text, uintptr_t ret) noexcept;

// The context a signal handler's frame saved, when the return address of CALLER (the frame above
// CUR) is that trampoline: the handler (e.g. JFR's sampler holding the thread suspended)
// interrupted it, and the kernel put its ucontext just above the return slot. False when that
// context does not lie within B or its SP is not above CUR's.
JVMKIT_SIGNAL_SAFE bool interrupted_context_below(const StackBounds& b, const Regs& cur, const Regs& caller,
                                                  Regs* out) noexcept;

}  // namespace jvmkit::walk
