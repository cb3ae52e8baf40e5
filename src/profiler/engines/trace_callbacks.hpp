// The stack-walk library's callbacks for the Java traces of the signal engines' requests: each
// delivered trace, or its failure, is counted into the current recording (recording.hpp). They
// run on the library's delivery thread, one trace at a time, and only while a run has the library
// enabled (Disable delivers every outcome before it returns). The native frames' callbacks are
// native_samples.hpp's.
#pragma once

#include <jvmkit/stack_walk.h>

namespace jvmkit::prof {

jvmtiStackTraceCallbacks java_trace_callbacks();

}  // namespace jvmkit::prof
