// What the walker learns of the running JVM at Enable (HotSpot's thread key, the JavaThread
// layout, the JDK version), and what it prints on stderr when it cannot. Not signal context.
#pragma once

#include <jni.h>
#include <jvmti.h>

namespace jvmkit::walk {

// The thread key and the thread layout, learnt early (start phase, VMStart) so that requests for
// the current thread are accepted from VMInit on. Silent: a failure is reported again, and is
// fatal, at the live-phase setup (probe_thread_key).
void probe_thread_facts(JNIEnv* jni);

// HotSpot's thread key. Without it the handler cannot tell a thread HotSpot is still starting
// from an attached one, so false (the reason on stderr) means nothing may be sampled.
bool probe_thread_key(JNIEnv* jni);

// The JavaThread layout (stack bounds). Without it the handler reads no stack: a warning, not a
// failure.
void probe_thread_layout(JNIEnv* jni);

// Warns once per process when the JDK update lacks fixes that make jmethodIDs safe for
// AsyncGetCallTrace (hotspot/jdk_version.hpp).
void warn_about_jdk(jvmtiEnv* jvmti);

}  // namespace jvmkit::walk
