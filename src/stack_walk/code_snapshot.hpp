// What signal code reads of the code map: immutable, sorted arrays of code ranges, looked up
// with a binary search, lock-free and allocation-free.
//
// A snapshot is a large base layer, shared by every snapshot built on it, and a small layer of
// what changed since: the nmethods compiled since, and the starts of base nmethods unloaded since.
// Publishing a change copies only the small layer; the base is rebuilt once the changes outgrow a
// bound that rises with its square root. A JIT that compiles N methods then costs about N*sqrt(N)
// copied entries, not N*N (20,000 compilations of a large server: 3 million, not 200 million).
//
// Nesting: a named stub ("StubRoutines::dlog") lies inside the blob that holds it
// ("StubRoutines (1)"). Each entry records the nearest earlier entry of its layer that encloses
// it, so a look-up walks from the last entry starting at or below the PC outwards and answers
// with the innermost range that contains it.
#pragma once

#include <jni.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/signal_safe.hpp"
#include "concurrent/snapshot_cell.hpp"
#include "stack_walk/call_sites.hpp"

namespace jvmkit::walk {

enum class CodeKind : uint8_t {
  kUnknown = 0,
  kInterpreter,  // the template interpreter (DynamicCodeGenerated "Interpreter")
  kStub,         // any other code blob or stub reported by DynamicCodeGenerated
  kNMethod,      // JIT-compiled code of a Java method (CompiledMethodLoad)
};

struct CodeRange {
  uintptr_t start;
  uintptr_t end;     // exclusive
  jmethodID method;  // kNMethod: the root method; else nullptr
  CodeKind kind;
  const char* name;     // kStub, kInterpreter: the name HotSpot reported (valid for the process's life)
  bool vtable_stub;     // kStub named "vtable stub" / "itable stub"
  bool call_stub;       // kStub named "call_stub": where the VM calls Java (entry frames)
  bool safepoint_blob;  // kStub named "SafepointBlob": where a safepoint poll sends compiled code
  bool deopt_blob;      // kStub named "DeoptimizationBlob": where a frame being deoptimized goes
  // kStub that pushes one word before its rbp frame (cookie_frame_made_at: HotSpot's nmethod
  // entry barrier): where the frame is made, 0 for any other code. Its return address is at
  // [rbp + 16].
  uint16_t cookie_frame_at;
  // kStub that saves two or more registers with pushes before its body, without a frame
  // (saved_registers.hpp): the body's offset, the registers pushed, the stack's depth there.
  // saved_pushes 0: not such a stub.
  uint32_t saved_end;
  uint32_t saved_pushes;
  uint32_t saved_depth;
  bool native_wrapper;  // kNMethod of a method declared native: one frame, of that method
  // kNMethod, or a kStub that starts like C2's code (scan_stub_frame): the prologue's "sub rsp,
  // N" (0: not recognised). C2 then saves rbp with a mov inside those N bytes and the return
  // address is at [sp + N]; C1 pushes rbp before the sub (pushes_rbp) and the return address is
  // at [sp + N + 8].
  uint32_t frame_size;
  bool pushes_rbp;
  // kNMethod with a known frame: offsets from start of the first prologue instruction that
  // changes rsp ("push rbp" for C1, "sub rsp" for C2) and of the first instruction after the
  // frame is complete. Before the first, the return address is at [sp]; in between, it depends
  // on the style (see recovery.cpp).
  uint16_t prologue_begin;
  uint16_t prologue_end;
  // kNMethod compiled before jvmkit's environment recorded compilations (Enable in the live phase)
  // and without -XX:+DebugNonSafepoints: HotSpot kept debug records only at safepoints and calls,
  // so AsyncGetCallTrace places a PC inside it by the next such record, maybe in another inlined
  // method or line. A trace whose interrupted PC is here is reported biased.
  bool coarse_debug_info;
  int32_t enclosing;  // index of the nearest enclosing entry, or -1
  // kNMethod: the exact records of its call sites, or nullptr (owned by the snapshots that hold it).
  const CallSites* call_sites;
};

// Sets each range's enclosing index: RANGES sorted by start, the larger first at one start
// (properly nested or disjoint; a partial overlap simply closes the earlier range).
void link_enclosing(std::vector<CodeRange>& ranges);

// One immutable array of ranges, sorted as link_enclosing wants and linked by it, with the call
// sites its nmethods point to.
class CodeLayer {
 public:
  CodeLayer() = default;
  CodeLayer(std::vector<CodeRange> ranges, std::vector<std::shared_ptr<const CallSites>> call_sites);
  // The innermost range containing PC, passing over the nmethods that start at one of the
  // HIDDEN_COUNT sorted addresses at HIDDEN; or nullptr.
  JVMKIT_SIGNAL_SAFE const CodeRange* find(uintptr_t pc, const uintptr_t* hidden = nullptr,
                                           size_t hidden_count = 0) const noexcept;
  size_t size() const noexcept { return ranges_.size(); }
  bool empty() const noexcept { return ranges_.empty(); }
  uintptr_t lowest() const noexcept { return lowest_; }
  uintptr_t highest() const noexcept { return highest_; }

 private:
  std::vector<CodeRange> ranges_;
  // The lowest start and the highest end of all ranges: most words a walk tries as return
  // addresses (stack addresses, data) lie outside, and are answered without a search.
  uintptr_t lowest_ = 0, highest_ = 0;
  // Keeps the ranges' call sites alive while a reader may hold a snapshot of this layer.
  std::vector<std::shared_ptr<const CallSites>> call_sites_;
};

class CodeSnapshot {
 public:
  // One layer holding RANGES (sorted and linked, see link_enclosing).
  explicit CodeSnapshot(std::vector<CodeRange> ranges, std::vector<std::shared_ptr<const CallSites>> call_sites = {});
  // BASE without its nmethods that start at REMOVED (sorted), with RECENT (nmethods only).
  CodeSnapshot(std::shared_ptr<const CodeLayer> base, CodeLayer recent, std::vector<uintptr_t> removed);
  // The innermost range containing PC, or nullptr.
  JVMKIT_SIGNAL_SAFE const CodeRange* find(uintptr_t pc) const noexcept;
  size_t size() const noexcept { return base_layer_->size() - removed_.size() + recent_.size(); }
  // How many entries of this snapshot are in its small layer (tests, and the rebuild bound).
  size_t changes() const noexcept { return recent_.size() + removed_.size(); }

 private:
  std::shared_ptr<const CodeLayer> base_;  // keeps the base alive while this snapshot exists
  const CodeLayer* base_layer_ = nullptr;  // the same, for signal code (no shared_ptr call there)
  CodeLayer recent_;
  std::vector<uintptr_t> removed_;
  uintptr_t lowest_ = 0, highest_ = 0;
};

// What signal code gets of the code map: the cell holding the current snapshot, read through a
// CodeSnapshotCell::Reader (no lock; the map's own methods take its mutex).
using CodeSnapshotCell = SnapshotCell<CodeSnapshot>;

}  // namespace jvmkit::walk
