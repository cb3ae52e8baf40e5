// event=alloc: HotSpot's heap sampler (JVMTI SampledObjectAlloc, SetHeapSamplingInterval) reports
// one allocation every INTERVAL bytes on average; each report becomes a sample with the allocating
// thread's stack, the allocated class as its leaf frame, and its weight in bytes (sample_weight.hpp).
//
// The class name is resolved in the callback, while the object (and so its class) is alive: a
// class unloaded later keeps its name in the profile.
#pragma once

#include <jvmti.h>

#include <cstdint>

#include "base/error.hpp"

namespace jvmkit::prof {

// Adds the capability, sets the sampling interval and enables the event on JVMTI (the profiler's
// environment). The interval is the JVM's, for every environment: it stays after stop.
Error start_alloc_sampling(jvmtiEnv* jvmti, int64_t interval_bytes);
// Disables the event; a callback under way may still request its trace (the library refuses it
// once disabled).
void stop_alloc_sampling(jvmtiEnv* jvmti);

// The SampledObjectAlloc callback of the profiler's environment.
void JNICALL on_sampled_object_alloc(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, jobject object, jclass klass,
                                     jlong size);

}  // namespace jvmkit::prof
