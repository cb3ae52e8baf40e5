// SIGNAL CONTEXT (see leaf_call.hpp). Reads only stack words that a StackBounds holds and code
// bytes of known nmethod ranges; calls CodeSnapshot::find.
#include "stack_walk/signal/x64/leaf_call.hpp"

#include "stack_walk/signal/x64/instructions.hpp"

namespace jvmkit::walk {

JVMKIT_SIGNAL_SAFE bool leaf_call_caller(const CodeSnapshot& code, const StackBounds& bounds, const Regs& at,
                                         LeafCaller* out) noexcept {
  Regs cur = at;
  for (int step = 0; step < kMaxLeafFrames; step++) {
    // An rbp frame: [rbp] the caller's rbp, [rbp + 8] the return address.
    if (cur.fp < cur.sp || !bounds.holds(cur.fp) || !bounds.holds(cur.fp + 8)) return false;
    const Regs caller{load_word(cur.fp + 8), cur.fp + 16, load_word(cur.fp)};
    const CodeRange* range = code.find(caller.pc);
    if (range != nullptr) {
      if (range->kind != CodeKind::kNMethod || range->native_wrapper || !follows_call(*range, caller.pc)) return false;
      *out = LeafCaller{caller, range};
      return true;
    }
    cur = caller;  // another native frame (libjvm calling on): follow its rbp
  }
  return false;
}

}  // namespace jvmkit::walk
