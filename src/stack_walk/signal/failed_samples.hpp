// A few of the samples whose capture failed, kept for diagnostics: where the thread was (its PC,
// the code there, its frame anchor) and how ASGCT answered, first and last. JVMKIT_WALK_DEBUG
// prints them at Disable, which is how a failure reason that still occurs is traced to the code
// shape behind it.
#pragma once

#include <jni.h>

#include <cstdint>

#include "base/signal_safe.hpp"
#include "stack_walk/code_snapshot.hpp"

namespace jvmkit::walk {

struct FailedSample {
  uintptr_t pc = 0, sp = 0;
  uintptr_t anchor_sp = 0, anchor_pc = 0;  // the frame anchor (0: none)
  jint first = 0, final = 0;               // ASGCT's first answer, and the capture's result
  CodeKind kind = CodeKind::kStub;         // the code at PC, when the code map knows it
  bool known = false;
  const char* name = nullptr;  // a stub's or the interpreter's name (valid for the process's life)
  // The same for the code at the anchor's PC.
  CodeKind anchor_kind = CodeKind::kStub;
  bool anchor_known = false;
  const char* anchor_name = nullptr;
  uintptr_t poll_pc = 0;          // the last safepoint poll's PC HotSpot saved (JavaThread::_saved_exception_pc)
  bool poll_in_nmethod = false;   // that PC lies in an nmethod the code map knows
  bool first_java_frame = false;  // the first Java frame below the anchor was found
  int walk_end = -1;              // how a walk from it ended (JavaWalkEnd), after
  int walk_frames = 0;            //   this many physical frames, the last of them
  CodeKind walk_last_kind = CodeKind::kStub;
  bool walk_last_known = false;  //   described or not
};

// Whether failed samples are kept: set once, before any capture, when JVMKIT_WALK_DEBUG is set.
void keep_failed_samples(bool on) noexcept;
JVMKIT_SIGNAL_SAFE bool failed_samples_kept() noexcept;

// SIGNAL SAFE. Keeps SAMPLE when the ring has room (the first kMaxFailedSamples failures).
JVMKIT_SIGNAL_SAFE void keep_failed_sample(const FailedSample& sample) noexcept;
constexpr int kMaxFailedSamples = 128;

// Prints the samples kept, one per line, with the library symbol at each PC where there is one.
// Not signal context.
void print_failed_samples();

}  // namespace jvmkit::walk
