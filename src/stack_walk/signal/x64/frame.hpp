// SIGNAL CONTEXT. What an x86-64 frame is made of for the walker: the three registers a walk
// carries (PC, SP, RBP), where they sit in a signal's ucontext, the part of a thread's stack that
// may be read, and the one way a stack slot is read. May call nothing; allocates nothing.
#pragma once

#include <ucontext.h>

#include <cstdint>
#include <cstring>

#include "base/signal_safe.hpp"

namespace jvmkit::walk {

// The registers of one frame: its PC, its SP and RBP (a frame pointer, or whatever C2 keeps in it).
struct Regs {
  uintptr_t pc, sp, fp;
};

// The interrupted registers of a signal's context.
JVMKIT_SIGNAL_SAFE inline Regs regs_of(const ucontext_t* uc) noexcept {
  return Regs{static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]),
              static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]),
              static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RBP])};
}

// Puts R into a (copied) context, for a walk that starts from there.
JVMKIT_SIGNAL_SAFE inline void set_regs(ucontext_t* uc, const Regs& r) noexcept {
  uc->uc_mcontext.gregs[REG_RIP] = static_cast<greg_t>(r.pc);
  uc->uc_mcontext.gregs[REG_RSP] = static_cast<greg_t>(r.sp);
  uc->uc_mcontext.gregs[REG_RBP] = static_cast<greg_t>(r.fp);
}

// The part of the stack a walk may read: [lo, hi), whole aligned words only. lo is the
// interrupted SP (the signal frame lies below it, so everything above is mapped), hi at most the
// top of the thread's stack.
struct StackBounds {
  uintptr_t lo, hi;
  JVMKIT_SIGNAL_SAFE bool holds(uintptr_t address) const noexcept {
    return address >= lo && address + 8 <= hi && (address & 7) == 0;
  }
};

// One stack word. Only for addresses a StackBounds holds (or code bytes of a known range).
JVMKIT_SIGNAL_SAFE inline uintptr_t load_word(uintptr_t address) noexcept {
  uintptr_t value;
  std::memcpy(&value, reinterpret_cast<const void*>(address), sizeof(value));
  return value;
}

}  // namespace jvmkit::walk
