// Whether a captured trace is the thread's whole stack: the capture's verdict (SIGNAL CONTEXT writes
// it, signal/x64/completeness.hpp), which the delivery thread acts on (deliverer.cpp).
//
// AsyncGetCallTrace now and then stops at a sender it cannot walk and still answers success with the
// frames it has (below a VM-to-Java call whose caller is a runtime stub, at a frame being
// deoptimized, ...). Such a trace looks complete. The capture proves each trace by walking the
// thread's Java frames itself, down to its first entry into Java, and comparing.
#pragma once

#include <cstdint>

namespace jvmkit::walk {

enum class Completeness : uint8_t {
  kUnchecked,  // no walk was possible (no code map or stack bounds yet, a truncated trace)
  kProven,     // the walk reached the thread's first entry into Java through exactly the trace's frames
  kCutShort,   // the thread has Java frames the trace does not hold: AsyncGetCallTrace stopped early
  kUnproven,   // the walk could not reach the first entry (a frame it cannot pass or describe)
};

}  // namespace jvmkit::walk
