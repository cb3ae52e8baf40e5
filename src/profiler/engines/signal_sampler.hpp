// The sampling signal handler: the profiler's only code that runs in signal context.
//
// SIGNAL CONTEXT (signal_sampler.cpp): the handler may only read its pre-set state, bump
// lock-free atomic counters, use an initial-exec thread-local, call current_tid and RequestStackTrace
// or JvmkitRequestStackTraceNative (async-signal-safe for the current thread, per stack_walk.h and
// stack_walk_native.h). No allocation, no locks, no JNI/JVMTI, errno preserved.
#pragma once

#include <jvmkit/stack_walk.h>
#include <jvmkit/stack_walk_native.h>
#include <sys/types.h>

#include <cstdint>

#include "base/error.hpp"
#include "base/signal_safe.hpp"
#include "profiler/recording/report.hpp"

namespace jvmkit::prof {

// The sampled thread's OS id (low 32 bits) and the number of its context record (high 32 bits,
// context_agent.hpp; 0: none) travel from the handler to the stack-trace callbacks as the request's
// user_data: these functions are the only places that know how.
JVMKIT_SIGNAL_SAFE inline void* sample_user_data(pid_t tid, uint32_t context_record) {
  return reinterpret_cast<void*>(static_cast<uintptr_t>(context_record) << 32 | static_cast<uint32_t>(tid));
}
JVMKIT_SIGNAL_SAFE inline void* tid_to_user_data(pid_t tid) { return sample_user_data(tid, 0); }
JVMKIT_SIGNAL_SAFE inline pid_t tid_from_user_data(void* user_data) {
  return static_cast<pid_t>(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(user_data)));
}
JVMKIT_SIGNAL_SAFE inline uint32_t context_record_from_user_data(void* user_data) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(user_data) >> 32);
}

// Installs the handler for SIGNAL (SA_SIGINFO | SA_RESTART), which requests a stack trace of the
// interrupted thread from ENV with CALLBACKS and the thread's OS id and context as user_data
// (sample_user_data);
// with native requests on (set_native_requests), JvmkitRequestStackTraceNative with
// NATIVE_CALLBACKS and NATIVE_FRAME instead.
// Fails when another handler already owns the signal. The handler starts inactive, and stays
// installed for the life of the process (a signal may still be pending after sampling stopped; the
// default action of a real-time signal would kill the JVM). Also catches SIGIO when it has no handler: the
// kernel sends it instead of a perf event's signal when the user's queue of pending signals is
// full (counted as overflowed, see SampleCounts).
Error install_sampling_handler(int signal, jvmtiEnv* env, const jvmtiStackTraceCallbacks& callbacks,
                               const jvmtiStackTraceCallbacks& native_callbacks,
                               jvmkitNativeFrameCallback native_frame);

// Turns sampling on or off (off: the handler returns at once).
void set_sampling_active(bool active);

// Whether the handler asks for native frames (cstack=native; the stack-walk library must have been
// enabled with JvmkitSetNativeFrames(ON)), and whether they pass the kernel call chain of the
// signal's perf sample (kernel_chains.hpp). Set while sampling is off, before
// set_sampling_active(true) publishes it.
void set_native_requests(bool native, bool kernel);

// True when a sample of TID was refused because TID is not a Java thread (remembered for up to
// 512 threads); with native requests, only threads HotSpot does not know (its own threads are
// accepted). Not for signal context.
bool is_known_non_java_thread(pid_t tid);

// Adds the handler's counts (signals, requested, accepted, not_java, dropped, overflowed) to *COUNTS.
void read_signal_counts(SampleCounts* counts);

}  // namespace jvmkit::prof
