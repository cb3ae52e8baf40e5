// HotSpot's AsyncGetCallTrace: the exported, undocumented walker that works outside a safepoint.
// Declared here because no JDK header declares it; the layout is HotSpot's (prims/forte.cpp).
#pragma once

#include <jni.h>

namespace jvmkit::hotspot {

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

// The bci ASGCT gives a native method's frame.
constexpr jint kAsgctNativeBci = -3;

// ASGCT's answers when it writes no frame (num_frames <= 0), with HotSpot's names (forte.cpp).
namespace asgct {
constexpr jint kNoJavaFrame = 0;          // ticks_no_Java_frame
constexpr jint kNoClassLoad = -1;         // ticks_no_class_load: ClassLoad was never enabled
constexpr jint kGcActive = -2;            // ticks_GC_active
constexpr jint kUnknownNotJava = -3;      // ticks_unknown_not_Java: outside Java, no last Java frame
constexpr jint kNotWalkableNotJava = -4;  // ticks_not_walkable_not_Java
constexpr jint kUnknownJava = -5;         // ticks_unknown_Java: in Java code, no frame it can describe
constexpr jint kNotWalkableJava = -6;     // ticks_not_walkable_Java
constexpr jint kUnknownState = -7;        // ticks_unknown_state
constexpr jint kThreadExit = -8;          // ticks_thread_exit
constexpr jint kDeopt = -9;               // ticks_deopt
constexpr jint kSafepoint = -10;          // ticks_safepoint
constexpr jint kLowestCode = -10;         // codes run from kNoJavaFrame down to this
}  // namespace asgct

}  // namespace jvmkit::hotspot
