// What the capture's physical walk records of each frame (signal/x64/physical_walk.hpp walks,
// exact_frame_types.hpp reads), kept in each request (request_pool.hpp).
#pragma once

#include <jni.h>

#include "stack_walk/code_map.hpp"

namespace jvmkit::walk {

// One physical Java frame: an interpreter frame, or a compiled frame of ROOT (whose virtual frames
// are the methods inlined into ROOT, then ROOT itself).
struct PhysicalFrame {
  jmethodID root;  // kNMethod: the nmethod's method; else nullptr
  CodeKind kind;   // kInterpreter or kNMethod
};

constexpr int kMaxPhysicalFrames = 64;

}  // namespace jvmkit::walk
