// Frame types from the physical frames the capture found (pure logic, delivery thread).
//
// ASGCT reports virtual frames: for a compiled physical frame, the methods inlined at the PC
// (innermost first), then the nmethod's own method. The capture's physical walk says, from the
// top, which physical frames there are: interpreter frames, and compiled frames with their root
// method. Matching the two types each virtual frame exactly:
//   - a frame with ASGCT's native marker (bci -3) is NATIVE (its native wrapper, when the walk
//     saw it, is the physical frame of the same method);
//   - an interpreter physical frame is one INTERPRETER virtual frame;
//   - a compiled physical frame with root R covers the virtual frames up to and including the
//     first one whose method is R: INLINE before it, JIT for R.
// When the walk ended early (deep stacks, a frame it cannot read) or a frame does not match, the
// remaining frames are left unknown for the caller's fallback.
#pragma once

#include <jvmkit/stack_walk.h>
#include <jvmti.h>

#include "hotspot/asgct.hpp"
#include "stack_walk/signal/x64/physical_walk.hpp"

namespace jvmkit::walk {

constexpr int kTypeUnknown = -1;

// Writes a jvmtiFrameType or kTypeUnknown for each of the N frames into TYPES; returns how many
// frames got an exact type. *PHYSICAL_USED (if not null) receives how many physical frames the N
// frames accounted for: fewer than PHYSICAL_COUNT although every frame was typed means the walk saw
// Java frames below the last one ASGCT reported.
int type_from_physical(const hotspot::AsgctFrame* frames, int n, const PhysicalFrame* physical, int physical_count,
                       int* types, int* physical_used = nullptr) noexcept;

}  // namespace jvmkit::walk
