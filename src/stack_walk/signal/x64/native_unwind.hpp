// SIGNAL CONTEXT. The unwinder of native frames: from an interrupted (or a caller's) set of
// registers through C/C++ frames by the unwind tables compiled off the signal path
// (native/native_snapshot.hpp), until the code cache (where the Java walk takes over), the
// thread's first frame, or a frame it cannot unwind exactly.
//
// Never a wrong frame: no frame-pointer guess where a table has no row. Each caller is taken only
// when its CFA lies on the thread's stack above the frame it unwinds, and its return address
// follows a call instruction in known code; otherwise the run ends, and says why. The one frame
// unwound without a row is the interrupted one in assembly without CFI, as a frameless leaf (its
// return address at [rsp]), and only when that word returns from a direct call to the code that
// holds the PC (docs/native_frames.md, "Leaf functions without CFI").
#pragma once

#include <cstdint>

#include "base/signal_safe.hpp"
#include "native/native_snapshot.hpp"
#include "stack_walk/code_map.hpp"
#include "stack_walk/signal/x64/frame.hpp"

namespace jvmkit::walk {

// How a run of native frames ended.
enum class NativeRunEnd : uint8_t {
  kJoin = 0,           // reached a PC in the code cache: join holds that frame's registers
  kOutermost,          // reached the thread's first frame (or a zero return address)
  kUnpreparedLibrary,  // a PC in an object whose table is not (or could not be) built
  kUnknownCode,        // a PC in no loaded object and not in the code cache
  kNoUnwindInfo,       // no CFI row covers a PC (and the interrupted one is no proven frameless leaf)
  kUnsupportedRule,    // the row holds a rule the table does not, or needs an unknown register
  kBadFrame,           // a CFA off the stack or not above the frame, or a return address after no call
  kDepth,              // more frames than the caller's buffer holds
};

// Bit 63 of a recorded PC: the PC is where a signal interrupted the code (the top frame, or the
// frame above a signal trampoline), not a return address. User-space addresses never have it.
inline constexpr uintptr_t kExactPcBit = uintptr_t{1} << 63;

struct NativeStart {
  Regs regs;
  // The interrupted frame's 16 GPRs in DWARF order (native::dwarf_gprs_of), or nullptr. Only a
  // frame a signal interrupted has them; they let a row whose CFA is another register unwind.
  const uint64_t* gprs = nullptr;
  bool exact_pc = true;  // regs.pc was interrupted there (else: a return address)
};

struct NativeRun {
  int count = 0;  // PCs written, leaf first (with kExactPcBit where exact)
  NativeRunEnd end = NativeRunEnd::kDepth;
  // kUnknownCode: the PC no object holds (the interrupted PC, or a caller's return address). It
  // is not among the PCs: nothing says it is native code (it may be Java code the code map does
  // not know yet, another JIT's, or an object loaded since the tables were built).
  uintptr_t end_pc = 0;
  Regs join{};              // kJoin: the code-cache frame (pc a return address unless join_exact)
  bool join_exact = false;  // kJoin: join.pc was interrupted there (a signal frame above it)
};

struct NativeUnwindContext {
  const native::NativeSnapshot* tables = nullptr;  // required
  const CodeSnapshot* code = nullptr;              // the code cache, or nullptr (no Java code known)
  StackBounds bounds{};                            // the thread's stack: nothing outside it is read
  // HotSpot's code heaps, [lo, hi) (0, 0: unknown): a PC there is the JVM's generated code even
  // before the code map heard of it (a method compiled a moment ago, its load event not posted).
  uintptr_t code_heap_lo = 0, code_heap_hi = 0;

  JVMKIT_SIGNAL_SAFE bool in_code_cache(uintptr_t pc) const noexcept {
    return (pc >= code_heap_lo && pc < code_heap_hi) || (code != nullptr && code->find(pc) != nullptr);
  }
};

// Unwinds from START. Records at most MAX PCs into PCS: the frames above the first code-cache PC
// (none when START's PC is in it). Reads only stack words inside CONTEXT.bounds, the immutable
// tables, and code bytes of the objects' executable segments.
JVMKIT_SIGNAL_SAFE NativeRun unwind_native(const NativeUnwindContext& context, const NativeStart& start, uintptr_t* pcs,
                                           int max) noexcept;

}  // namespace jvmkit::walk
