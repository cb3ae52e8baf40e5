// JvmkitRequestCurrentStackTrace: a request for the calling thread's stack from normal context (a
// JVMTI event callback, a JNI native method), never from a signal handler. It captures as
// RequestStackTrace without a ucontext does; but on a mounted virtual thread, whose frames HotSpot
// thaws lazily (virtual_threads.hpp) so that a walk of the stack sees only their top, it takes the
// virtual thread's whole stack with JVMTI GetStackTrace of the calling thread itself (safe: a
// thread's own stack cannot change under it), before returning.
#pragma once

#include <jvmkit/stack_walk.h>
#include <jvmti.h>

#include "stack_walk/own_env.hpp"

namespace jvmkit::walk {

jvmtiError request_current_thread_now(const OwnEnv& env, const jvmtiStackTraceCallbacks& callbacks, void* user_data);

}  // namespace jvmkit::walk
