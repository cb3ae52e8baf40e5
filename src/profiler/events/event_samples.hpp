// src/profiler/events/: samples of the JVM's own events, which come through JVMTI on the thread
// they happen on rather than through a signal: allocations (alloc_sampler.hpp, weighted by
// sample_weight.hpp), contended monitors and parks (lock_sampler.hpp, with park_hook.hpp,
// park_blocker.hpp and, for virtual threads, virtual_thread_parks.hpp). Each requests its stack
// through this file, whose trace callbacks feed the current Recording (recording/) as the signal's
// do. The controller (run/) enables and disables them. Nothing here includes run/.
//
// Samples of the JVM's own events (alloc, lock): taken in a JVMTI callback or an intercepted native
// on the thread the event happens on, with the stack of that moment (RequestStackTrace for the
// current thread without a ucontext), and delivered later like every trace.
//
// Each request carries an EventSample as its user_data: what the stack alone does not say (the
// class allocated or locked, the sample's weight, the thread's OS id and request context). The trace callbacks consume
// it, and every request ends in exactly one outcome, so it is freed in endStackTrace or in failure,
// or at once when the library refuses the request.
#pragma once

#include <jvmkit/stack_walk.h>
#include <jvmti.h>
#include <sys/types.h>

#include <cstdint>
#include <string>

#include "profiler/context/context_slots.hpp"
#include "profiler/event_spec.hpp"
#include "profiler/recording/report.hpp"

namespace jvmkit::prof {

struct EventSample {
  EngineKind kind = EngineKind::kAlloc;  // kAlloc or kLock
  std::string class_name;                // the leaf frame: "byte[]", "java.lang.Object"
  int64_t weight = 0;                    // bytes (alloc), nanoseconds waited (lock)
  pid_t tid = 0;
  jlong tag = 0;          // alloc with live: the object's JVMTI tag (its ObjectFree event names it), else 0
  bool late = false;      // its trace was taken after the event (JvmkitCurrentTraceServedLater): left out
  bool park = false;      // lock: a parked thread (LockSupport.park), not a monitor
  SampleContext context;  // the thread's request context at the event
};

// Requests the current thread's stack for SAMPLE (ownership passes: it is freed whatever happens)
// through JVMTI, counting the request under its kind. Not for signal context (it frees memory, and
// waits up to 100 ms for a free slot when the library's request pool is full).
void request_event_trace(jvmtiEnv* jvmti, EventSample* sample);

// A trace requested before its sample's weight is known (a virtual thread's park: the stack at its
// unmount, the wait at its next mount; virtual_thread_parks.hpp), for the current thread, with the
// caller's CALLBACKS; it waits for a free slot as request_event_trace does (those waits are
// counted). The request itself is counted only once the sample is decided: count_decided_request
// (ACCEPTED: its trace is, or will be, delivered or failed; else dropped), and count_late_trace
// for one taken after the event.
jvmtiError request_trace_ahead(jvmtiEnv* jvmti, EngineKind kind, const jvmtiStackTraceCallbacks& callbacks,
                               void* user_data);
void count_decided_request(EngineKind kind, bool accepted);
void count_late_trace(EngineKind kind);

// The counts of KIND's requests since the library was loaded: requested, accepted, dropped (the
// library refused: not enabled, or the pool stayed full for the longest wait), the waits for a
// free slot in the pool, and events seen that were not sampled (lock: waits
// below the threshold).
struct EventRequestCounts {
  int64_t requested = 0;
  int64_t accepted = 0;
  int64_t dropped = 0;
  int64_t below_threshold = 0;
  int64_t waited = 0;     // requests that found the pool full and waited for a slot
  int64_t retried = 0;    // ... their rejected attempts (counted by the library as pool_full)
  int64_t waited_ns = 0;  // ... the time they waited in all
  int64_t late = 0;       // traces taken after the event, not at it: left out (counted as failed)
};
EventRequestCounts event_request_counts(EngineKind kind);
// A lock wait shorter than the threshold, not sampled.
void count_below_threshold(EngineKind kind);

// The Java name of the class of a JVMTI class signature's class KLASS: "java.lang.String",
// "int[][]"; "?" when JVMTI cannot say.
std::string java_class_name(jvmtiEnv* jvmti, jclass klass);

}  // namespace jvmkit::prof
