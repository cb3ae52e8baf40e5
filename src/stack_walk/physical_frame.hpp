// What the capture's physical walk records of each frame (signal/x64/physical_walk.hpp walks,
// exact_frame_types.hpp reads), kept in each request (request_pool.hpp).
#pragma once

#include <jni.h>

#include "base/signal_safe.hpp"
#include "stack_walk/code_map.hpp"

namespace jvmkit::walk {

// One physical Java frame: an interpreter frame, or a compiled frame of ROOT (whose virtual frames
// are the methods inlined into ROOT, then ROOT itself).
struct PhysicalFrame {
  jmethodID root;  // kNMethod: the nmethod's method; else nullptr
  CodeKind kind;   // kInterpreter or kNMethod
};

// The physical frame of code in R (the interpreter or an nmethod).
JVMKIT_SIGNAL_SAFE inline PhysicalFrame physical_frame_of(const CodeRange& r) noexcept {
  return PhysicalFrame{r.kind == CodeKind::kNMethod ? r.method : nullptr, r.kind};
}

constexpr int kMaxPhysicalFrames = 64;

}  // namespace jvmkit::walk
