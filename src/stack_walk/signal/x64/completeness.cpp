// SIGNAL CONTEXT. Proves a captured trace complete, or cut short, by walking the thread's Java
// frames (java_frames.hpp) down to its first entry into Java.
//
// May call: walk_java_frames and what it calls (java_frames.hpp), CodeSnapshot::find,
// hotspot::find_code_blob. Nothing else: no allocation, locks, JNI/JVMTI. Time: one step per
// physical frame, at most N + 1 virtual frames (the walk stops once it has seen more frames than
// the trace holds).
//
// The comparison. AsyncGetCallTrace reports virtual frames, innermost first; every physical frame
// below the top one stands at a call, and HotSpot describes it by that call's debug record, which
// the walk reads too (CallSites), or it is an interpreter frame or a native method (one frame). So
// a complete trace is: the top physical frame's frames (a compiled frame's end in its root method;
// an interpreter or native frame is one frame), then, in order, the virtual frames the walk finds
// below it, and nothing after the last. The walk compares them as it goes, so nothing is stored:
// compiled and native frames by method (bcis need not be: a cut trace lacks frames, which the
// methods and the count show), an interpreter frame by its place alone. Its Method* is not read:
// a walk that went wrong (a frame interrupted half made) finds anything in that slot, and reading
// through it could fault inside the signal handler.
#include "stack_walk/signal/x64/completeness.hpp"

#include <algorithm>
#include <atomic>
#include <optional>
#include <string>

#include "base/debug_check.hpp"
#include "hotspot/code_heap.hpp"
#include "stack_walk/signal/x64/instructions.hpp"
#include "stack_walk/signal/x64/java_frames.hpp"

namespace jvmkit::walk {

namespace {

// How proofs ended, by outcome, for diagnostics (JVMKIT_WALK_DEBUG prints them at Disable).
enum ProofEnd {
  kProofProven,
  kProofTooMany,
  kProofCallerUnknown,
  kProofTopMismatch,
  kProofMethodsMismatch,
  kProofUnwalkable,
  kProofOtherCode,
  kProofLeafUnproven,
  kProofUnknownNMethod,
  kProofEndCount
};
constexpr const char* kProofEndNames[kProofEndCount] = {"proven",       "more_frames",      "caller_unknown",
                                                        "top_mismatch", "methods_mismatch", "unwalkable",
                                                        "other_code",   "leaf_unproven",    "unknown_nmethod"};
std::atomic<int64_t> g_proof_ends[kProofEndCount];

JVMKIT_SIGNAL_SAFE Completeness ended(ProofEnd end, Completeness verdict) noexcept {
  g_proof_ends[end].fetch_add(1, std::memory_order_relaxed);
  return verdict;
}

// How far above a leaf's SP its Java caller's return address is looked for, and how many
// candidates are tried (each a walk to the bottom).
constexpr uintptr_t kMaxLeafScan = 64;
constexpr int kMaxLeafTries = 3;

// Counts only the proofs that decide (a walk from a guessed frame that fails is one of several tries).
JVMKIT_SIGNAL_SAFE Completeness ended_if(bool strict, ProofEnd end, Completeness verdict) noexcept {
  return strict || verdict == Completeness::kProven ? ended(end, verdict) : verdict;
}

// How many places of the top frame's root method in the trace are tried as its end.
constexpr int kMaxTopTries = 2;

JVMKIT_SIGNAL_SAFE Completeness prove(const CodeSnapshot& code, const Regs& top, uintptr_t stack_top,
                                      const hotspot::AsgctFrame* frames, jint n, bool strict,
                                      PhysicalOut* physical) noexcept;

}  // namespace

JVMKIT_SIGNAL_SAFE Completeness prove_complete(const CodeSnapshot& code, const Regs& top, uintptr_t stack_top,
                                               const hotspot::AsgctFrame* frames, jint n,
                                               PhysicalOut* physical) noexcept {
  return prove(code, top, stack_top, frames, n, true, physical);
}

JVMKIT_SIGNAL_SAFE Completeness prove_complete_from_leaf(const CodeSnapshot& code, const Regs& at, uintptr_t stack_top,
                                                         const hotspot::AsgctFrame* frames, jint n,
                                                         PhysicalOut* physical) noexcept {
  const StackBounds bounds{at.sp, std::min(at.sp + 8 * kMaxLeafScan, stack_top)};
  int tries = 0;
  for (uintptr_t slot = at.sp; bounds.holds(slot) && tries < kMaxLeafTries; slot += 8) {
    const uintptr_t ret = load_word(slot);
    const CodeRange* r = code.find(ret);
    if (!is_java(r) || (r->kind == CodeKind::kNMethod && !follows_call(*r, ret))) continue;
    tries++;
    // An interpreter caller's rbp: kept by the leaf, or saved where the leaf's own rbp points.
    const uintptr_t fp = at.fp > slot || !bounds.holds(at.fp) ? at.fp : load_word(at.fp);
    if (prove(code, Regs{ret, slot + 8, fp}, stack_top, frames, n, false, physical) == Completeness::kProven) {
      return Completeness::kProven;
    }
  }
  if (physical != nullptr) physical->count = 0;  // the frames of a guess that proved nothing
  // Compiled code HotSpot has not posted yet is no leaf: told apart, for diagnostics.
  const std::optional<hotspot::CodeBlobInfo> blob = hotspot::find_code_blob(at.pc);
  return ended(blob && blob->is_nmethod ? kProofUnknownNMethod : kProofLeafUnproven, Completeness::kUnproven);
}

namespace {

// Where the frames below the top physical frame start in the trace, for a top frame of R: after
// the frames ASGCT gave it, which for a compiled frame end in its root method (the FROM-th or a
// later occurrence of it: a method inlined into itself shows up more than once), else after one
// frame. 0 when there is no such frame.
JVMKIT_SIGNAL_SAFE jint frames_of_top(const CodeRange& r, const hotspot::AsgctFrame* frames, jint n,
                                      jint from) noexcept {
  if (r.kind != CodeKind::kNMethod || r.native_wrapper) return from == 0 && n >= 1 ? 1 : 0;
  for (jint i = from; i < n; i++) {
    if (frames[i].method_id == r.method) return i + 1;
  }
  return 0;
}

// Walks from TOP and compares each frame below it with the trace's, from FIRST_BELOW on.
JVMKIT_SIGNAL_SAFE ProofEnd compare_below(const CodeSnapshot& code, const Regs& top, uintptr_t stack_top,
                                          const hotspot::AsgctFrame* frames, jint n, jint first_below,
                                          PhysicalOut* physical) noexcept {
  jint next = first_below;  // the trace's frame the walk compares next
  EntriesOut* entries = physical != nullptr ? physical->entries : nullptr;
  if (physical != nullptr) {
    physical->count = 0;
    physical->resumable = false;
  }
  if (entries != nullptr) *entries = EntriesOut{};
  const jint offset = physical != nullptr ? physical->offset : 0;
  bool too_many = false, differs = false;
  const auto on_entry = [&](const Regs& stub, bool first, const Regs& below) {
    // AsyncGetCallTrace stops at some entry frames (a VM-to-Java call whose caller is a runtime
    // stub); the frames below can be walked from the entry's saved anchor (PhysicalOut::resume).
    if (!first && next == n && physical != nullptr && !differs) {
      physical->resumable = true;
      physical->resume_deoptimized = false;
      physical->resume = below;
      physical->resume_physical = physical->count;
    }
    if (entries == nullptr) return;
    if (entries->count == kMaxEntryFrames) {
      entries->overflow = true;
      return;
    }
    entries->frames[entries->count++] = EntryFrame{stub, below, next + offset, first};
  };
  const JavaWalkEnd end = walk_java_frames(
      code, top, StackBounds{top.sp, stack_top}, stack_top, false, Describe::kAllButInterpreted,
      [&](const CodeRange& range, const VirtualFrames& virt) {
        // AsyncGetCallTrace stops above a frame being deoptimized, and reports success: the
        // frames from it on can be walked here (PhysicalOut::resume).
        if (virt.deoptimized && next == n && !differs && physical != nullptr && !physical->resumable) {
          physical->resumable = true;
          physical->resume_deoptimized = true;
          physical->resume = virt.at;
          physical->resume_physical = physical->count;
        }
        if (physical != nullptr && physical->count < physical->max) {
          physical->frames[physical->count++] = physical_frame_of(range);
        }
        // A Java frame beyond the trace's last, described or not: the trace lacks it.
        if (!virt.known) {
          too_many = next >= n;
          return false;
        }
        if (next + virt.count > n) {
          too_many = true;
          return false;
        }
        // An interpreter frame is one frame whose method is not read (see Describe).
        for (int i = 0; virt.frames != nullptr && i < virt.count; i++) {
          differs = differs || frames[next + i].method_id != virt.frames[i].method_id;
        }
        next += virt.count;
        return !differs;
      },
      on_entry);
  if (too_many) return kProofTooMany;
  if (differs) return kProofMethodsMismatch;
  // A Java frame the walk cannot pass (one being deoptimized): AsyncGetCallTrace stops there too.
  if (end == JavaWalkEnd::kCallerUnknown) return kProofCallerUnknown;
  if (end == JavaWalkEnd::kOtherCode) return kProofOtherCode;
  if (end != JavaWalkEnd::kFirstEntry) return kProofUnwalkable;
  // At the thread's first entry: the trace must end here too.
  return next == n ? kProofProven : kProofMethodsMismatch;
}

JVMKIT_SIGNAL_SAFE Completeness prove(const CodeSnapshot& code, const Regs& top, uintptr_t stack_top,
                                      const hotspot::AsgctFrame* frames, jint n, bool strict,
                                      PhysicalOut* physical) noexcept {
  JVMKIT_DCHECK(n > 0);
  const CodeRange* top_range = code.find(top.pc);
  if (!is_java(top_range) || stack_top <= top.sp) return Completeness::kUnchecked;
  // A walk from a frame that is surely the trace's top frame (STRICT) shows a trace cut short by
  // any mismatch; one from a guessed frame proves nothing by a mismatch.
  const Completeness mismatch = strict ? Completeness::kCutShort : Completeness::kUnproven;
  ProofEnd end = kProofTopMismatch;
  jint first_below = frames_of_top(*top_range, frames, n, 0);
  for (int tries = 0; first_below > 0 && tries < kMaxTopTries; tries++) {
    end = compare_below(code, top, stack_top, frames, n, first_below, physical);
    if (end != kProofMethodsMismatch && end != kProofTooMany) break;
    first_below = frames_of_top(*top_range, frames, n, first_below);  // the root inlined into itself?
  }
  switch (end) {
    case kProofProven:
      return ended_if(strict, end, Completeness::kProven);
    case kProofOtherCode:
    case kProofUnwalkable:
      return ended_if(strict, end, Completeness::kUnproven);
    default:
      return ended_if(strict, end, mismatch);
  }
}

}  // namespace

std::string proof_walk_ends() {
  std::string out;
  for (int i = 0; i < kProofEndCount; i++) {
    if (!out.empty()) out += ' ';
    out += kProofEndNames[i];
    out += ':';
    out += std::to_string(g_proof_ends[i].load(std::memory_order_relaxed));
  }
  return out;
}

}  // namespace jvmkit::walk
