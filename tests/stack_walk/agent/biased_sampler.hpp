// The second sampler of the bias and depth tests (biased requests from a Java agent thread), and
// the deoptimizations it causes with option deoptimize_ms.
#pragma once

#include <jvmti.h>

#include <atomic>
#include <cstdint>

namespace walktest {

extern std::atomic<int64_t> g_deoptimizations;
// The SingleStep callback: the events are enabled only to make HotSpot deoptimize.
void JNICALL on_single_step(jvmtiEnv*, JNIEnv*, jthread, jmethodID, jlocation);
void start_biased_sampler(JNIEnv* jni);
void stop_biased_sampler();

}  // namespace walktest
