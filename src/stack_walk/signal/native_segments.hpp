// SIGNAL CONTEXT. The native frames below Java frames: at each entry frame the capture's proof
// crossed (the VM calling Java: a JNI upcall, a class initialiser, the thread's start), the C and
// C++ frames from the call stub's caller down to the Java frames below the entry, or to the
// thread's first frame below its first entry.
#pragma once

#include "base/signal_safe.hpp"
#include "native/native_snapshot.hpp"
#include "stack_walk/code_map.hpp"
#include "stack_walk/request_pool.hpp"
#include "stack_walk/signal/x64/completeness.hpp"
#include "stack_walk/signal/x64/frame.hpp"
#include "stack_walk/signal/x64/native_unwind.hpp"

namespace jvmkit::walk {

// Fills REQUEST->native's segments (after its run's PCs) from ENTRIES, the entry frames of the
// walk that proved REQUEST's Java frames the whole stack. Nothing when they were not proven: the
// places of the entries in the trace are known only then.
// CONTEXT: the tables, the code map (required) and the thread's stack.
JVMKIT_SIGNAL_SAFE void capture_segments(const NativeUnwindContext& context, const EntriesOut& entries,
                                         Request* request) noexcept;

}  // namespace jvmkit::walk
