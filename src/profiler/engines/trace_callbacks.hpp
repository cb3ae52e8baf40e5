// The stack-walk library's callbacks for the Java traces of the signal engines' requests: each
// delivered trace, or its failure, is counted into the current recording (recording.hpp). They
// run on the library's delivery thread, one trace at a time, and only while a run has the library
// enabled (Disable delivers every outcome before it returns). The native frames' callbacks are
// native_samples.hpp's.
#pragma once

#include <jvmkit/stack_walk.h>

namespace jvmkit::prof {

jvmtiStackTraceCallbacks java_trace_callbacks();

// The callbacks a native request's trace shares with a Java request's (native_samples.cpp adds the
// trace's thread and its native frames): a Java frame, and the end of the trace.
jint JNICALL count_java_frame(jvmtiFrameType type, jmethodID method, jlocation location, void* user_data);
void JNICALL count_trace_end(jthread thread, void* user_data);

}  // namespace jvmkit::prof
