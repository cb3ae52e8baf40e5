// cstack=native on the agent's side: the stack-walk library's native-frames extension
// (jvmkit/stack_walk_native.h) opted in before Enable, the callbacks of the native requests the
// signal handler makes (they feed the current Recording, as the Java requests' callbacks do), and
// the library's figures for the report. alloc and lock never make native requests: their native
// part would be the profiler's own JVMTI callback.
#pragma once

#include <jvmkit/stack_walk_native.h>

#include <array>
#include <cstdint>
#include <string>

#include "base/error.hpp"
#include "profiler/options.hpp"
#include "profiler/recording/native_frames.hpp"
#include "profiler/recording/native_report.hpp"

namespace jvmkit::prof {

// Chooses whether the next EnableRequestStackTrace prepares native frames: ON and WAIT (Enable
// returns once every loaded object's table is built, so that the first samples unwind) or OFF.
// Not while the library is enabled.
Error set_native_frames(bool on);

// Sets the library's mode for a run with OPTIONS. The library keeps it for every later Enable, so
// a run without native frames after one with them sets it back; *MODE_SET says whether it was last
// set on (a JVM that never asked for native frames never calls the library). Mixed stacks by
// default (cstack= not given) fall back to Java frames where the library refuses them: then
// OPTIONS->cstack becomes kNo and *NOTE says why. cstack=native given is refused there.
Error choose_native_frames(Options* options, bool* mode_set, std::string* note);

// The callbacks of the signal handler's native requests (on the library's delivery thread).
jvmtiStackTraceCallbacks native_trace_callbacks();
jvmkitNativeFrameCallback native_frame_callback();

// The library's table figures (JvmkitGetNativeCounters) into F: objects and rows of the current
// tables, and the time spent building tables since PREPARE_BASE_NS (the total when the run began).
void add_native_table_figures(int64_t prepare_base_ns, NativeFigures* f);
// The library's total time spent building tables so far.
int64_t native_prepare_ns();

// The library's short names of the marker reasons ("unprepared_library"), indexed as kMarkerNames.
std::array<std::string, kMarkerReasons> marker_labels();

}  // namespace jvmkit::prof
