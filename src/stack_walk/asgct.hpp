// HotSpot's AsyncGetCallTrace: the exported, undocumented walker that works outside a safepoint.
// Declared here because no JDK header declares it; the layout is HotSpot's (prims/forte.cpp).
#pragma once

#include <jni.h>

#include "stack_walk/failure.hpp"

namespace jvmkit::walk {

struct AsgctFrame {
  jint lineno;  // the bci; -3 for a native method
  jmethodID method_id;
};

struct AsgctTrace {
  JNIEnv* env_id;   // the sampled thread's JNIEnv: ASGCT checks it is the current thread's
  jint num_frames;  // > 0: frames written; <= 0: one of the codes below
  AsgctFrame* frames;
};

using AsgctFunction = void (*)(AsgctTrace* trace, jint depth, void* ucontext);

// ASGCT's result codes (HotSpot forte.cpp), mapped onto jvmkit's failure reasons.
constexpr jint kAsgctNativeBci = -3;

inline jvmkitFailureReason failure_from_asgct(jint code) {
  switch (code) {
    case 0:   // ticks_no_Java_frame
    case -3:  // ticks_unknown_not_Java
    case -4:  // ticks_not_walkable_not_Java
      return JVMKIT_FAILURE_NO_JAVA_FRAMES;
    case -2:  // ticks_GC_active
      return JVMKIT_FAILURE_GC_ACTIVE;
    case -5:   // ticks_unknown_Java
    case -6:   // ticks_not_walkable_Java
    case -7:   // ticks_unknown_state
    case -10:  // ticks_safepoint
      return JVMKIT_FAILURE_NOT_WALKABLE;
    case -8:  // ticks_thread_exit
      return JVMKIT_FAILURE_THREAD_ENDED;
    case -9:  // ticks_deopt
      return JVMKIT_FAILURE_DEOPTIMIZING;
    default:  // -1 ticks_no_class_load (ClassLoad not enabled) and anything new
      return JVMKIT_FAILURE_OTHER;
  }
}

}  // namespace jvmkit::walk
