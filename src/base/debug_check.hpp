// JVMKIT_DCHECK(condition): an invariant that executes in the test and sanitizer builds and costs
// nothing in Release builds.
//
// Where a comment states an invariant (a precondition of a walk step, a bound of a pool or queue,
// begin/end pairing), the check states it in code. A failed check writes "jvmkit: debug check
// failed: <condition> at <file>:<line>" to stderr with write(2) and aborts: async-signal-safe, so
// it may be used in signal handlers too. Compiled in when JVMKIT_DEBUG_CHECKS is defined (CMake
// defines it for every build type but Release and MinSizeRel); the condition is not evaluated
// otherwise, so it must have no side effects.
//
// A macro, not a function: it needs the caller's file and line, and it must vanish, condition
// included, from Release builds.
#pragma once

#include "base/signal_safe.hpp"

namespace jvmkit {

[[noreturn]] JVMKIT_SIGNAL_SAFE void debug_check_failed(const char* condition, const char* file, int line) noexcept;

}  // namespace jvmkit

#if defined(JVMKIT_DEBUG_CHECKS)
#define JVMKIT_DCHECK(condition) \
  ((condition) ? static_cast<void>(0) : ::jvmkit::debug_check_failed(#condition, __FILE__, __LINE__))
#else
#define JVMKIT_DCHECK(condition) static_cast<void>(sizeof(static_cast<bool>(condition)))
#endif
