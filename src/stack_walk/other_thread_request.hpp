// RequestStackTrace for an explicit jthread. Not signal context: the thread is checked with JNI
// and JVMTI, and the request holds a global reference to it until the delivery thread serves it
// with GetStackTrace (biased). The current thread's path is signal/capture.cpp.
#pragma once

#include <jni.h>
#include <jvmkit/stack_walk.h>
#include <jvmti.h>

#include "stack_walk/own_env.hpp"
#include "stack_walk/signal/native_capture.hpp"

namespace jvmkit::walk {

// THREAD == nullptr, or the calling thread itself, takes the current thread's path (with
// UCONTEXT). ENV is read only once past the request gate.
// NATIVE: a JvmkitRequestStackTraceNative request (its trace gets a not_captured marker when the
// thread is another one).
jvmtiError request_other_thread(const OwnEnv& env, jthread thread, void* ucontext,
                                const jvmtiStackTraceCallbacks& callbacks, void* user_data,
                                const NativeAsk* native = nullptr);

}  // namespace jvmkit::walk
