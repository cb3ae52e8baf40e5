// SIGNAL CONTEXT. What the x86-64 capture keeps of a sample that failed, for diagnostics
// (failed_samples.hpp, JVMKIT_WALK_DEBUG).
#pragma once

#include <jni.h>

#include <cstdint>

#include "base/signal_safe.hpp"
#include "stack_walk/code_snapshot.hpp"
#include "stack_walk/signal/x64/frame.hpp"

namespace jvmkit::walk {

struct FailedCapture {
  const CodeSnapshot* code;  // may be null
  JNIEnv* jni;               // may be null
  const CodeRange* range;    // the code at AT.pc, or null
  Regs at;                   // the interrupted registers
  uintptr_t stack_top;       // 0: unknown
  jint first, final;         // ASGCT's first answer, and the capture's result
};

// Keeps where the thread was (its PC, the code there, its frame anchor and the code at the
// anchor's PC, the last safepoint poll) and how far a walk from the anchor got. Reads only what
// the capture reads: the thread's own JavaThread fields and stack, the code map, code bytes.
JVMKIT_SIGNAL_SAFE void keep_failed_capture(const FailedCapture& capture) noexcept;

}  // namespace jvmkit::walk
