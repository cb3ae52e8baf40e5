// event=alloc: HotSpot's heap sampler (JVMTI SampledObjectAlloc, SetHeapSamplingInterval) reports
// one allocation every INTERVAL bytes on average; each report becomes a sample with the allocating
// thread's stack, the allocated class as its leaf frame, and its weight in bytes (sample_weight.hpp).
//
// The class name is resolved in the callback, while the object (and so its class) is alive: a
// class unloaded later keeps its name in the profile.
#pragma once

#include <jvmti.h>

#include <cstdint>
#include <vector>

#include "base/error.hpp"

namespace jvmkit::prof {

// Adds the capability, sets the sampling interval and enables the event on JVMTI (the profiler's
// environment). The interval is the JVM's, for every environment: it stays after stop. LIVE: each
// sampled object is tagged, and ObjectFree reports the tags of those the GC freed.
Error start_alloc_sampling(jvmtiEnv* jvmti, int64_t interval_bytes, bool live);
// Disables the events; a callback under way may still request its trace (the library refuses it
// once disabled). ObjectFree events still pending are reported first.
void stop_alloc_sampling(jvmtiEnv* jvmti);

// Live: the tags of the sampled objects freed since the last call.
std::vector<jlong> take_freed_tags();

// The SampledObjectAlloc callback of the profiler's environment.
void JNICALL on_sampled_object_alloc(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, jobject object, jclass klass,
                                     jlong size);
// The ObjectFree callback (live): called by the GC or the JVM's service thread, it only records TAG.
void JNICALL on_object_free(jvmtiEnv* jvmti, jlong tag);

}  // namespace jvmkit::prof
