// The Unbiased Stack-Walk API as JVMTI extension functions, the way the JEP draft delivers it:
// when libjvmkit_walk.so is loaded as an agent, every JVMTI environment created after it lists
// com.sun.hotspot.functions.RequestStackTrace, ...EnableRequestStackTrace and
// ...DisableRequestStackTrace (and jvmkit's own extensions under jvmkit.functions.*) in
// GetExtensionFunctions, after HotSpot's own.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <string>

namespace jvmkit::walk::extension {

// Routes the JavaVM's GetEnv through jvmkit: each JVMTI environment it creates from now on gets a
// copy of its function table whose GetExtensionFunctions adds jvmkit's functions. Environments
// created before are left as they are. Idempotent; false with the reason in *why if vm's
// invocation interface cannot be replaced.
bool install(JavaVM* vm, std::string* why);

}  // namespace jvmkit::walk::extension
