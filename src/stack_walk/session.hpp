// The walker's life cycle: Enable and Disable, in every phase they may be called in. Enable
// publishes the request pool to the capture side and opens the request gate, creates jvmkit's own
// JVMTI environment, probes the JVM and starts the delivery thread (at once in the live phase, at
// VMInit from Agent_OnLoad, from a native "completer" thread once the VM has started when enabled
// in the start phase). Disable undoes all of it, after every accepted request has its outcome.
// Not signal context.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <memory>
#include <mutex>

#include "hotspot/asgct.hpp"
#include "stack_walk/code_map.hpp"
#include "stack_walk/deliverer.hpp"
#include "stack_walk/delivery_thread.hpp"
#include "stack_walk/depth.hpp"
#include "stack_walk/fallback_frame_types.hpp"
#include "stack_walk/native/native_tables.hpp"
#include "stack_walk/own_env.hpp"
#include "stack_walk/request_pool.hpp"
#include "stack_walk/signal/capture.hpp"
#include "stack_walk/thread_registry.hpp"

namespace jvmkit::walk {

class Session {
 public:
  Session(OwnEnv& env, ThreadRegistry& threads, EnvOffset& env_offset, FrameTypes& frame_types, CodeMap& code_map,
          const Deliverer& deliverer, DeliveryThread& delivery_thread)
      : env_(env),
        threads_(threads),
        env_offset_(env_offset),
        frame_types_(frame_types),
        code_map_(code_map),
        deliverer_(deliverer),
        delivery_thread_(delivery_thread) {}

  jvmtiError enable(jvmtiEnv* caller_env);
  jvmtiError disable(jvmtiEnv* caller_env);
  // The JavaVM given with JvmkitSetJavaVM: Enable uses it instead of looking the JavaVM up, which
  // can fail while the JVM is starting.
  void set_java_vm(JavaVM* vm) { given_vm_.store(vm); }
  // JvmkitSetMaxStackDepth: the depth limit of the sessions Enable starts from now on.
  // JVMTI_ERROR_ILLEGAL_ARGUMENT out of range (depth.hpp), JVMTI_ERROR_WRONG_PHASE while enabled.
  jvmtiError set_max_frames(jint max_frames);
  // JvmkitSetNativeFrames: whether the sessions Enable starts from now on prepare native frames.
  // JVMTI_ERROR_ILLEGAL_ARGUMENT for an unknown mode, JVMTI_ERROR_WRONG_PHASE while enabled.
  jvmtiError set_native_frames(jint mode);

  // Events of jvmkit's own environment (Enable in Agent_OnLoad).
  void on_vm_start(jvmtiEnv* jvmti, JNIEnv* jni);
  void on_vm_init(jvmtiEnv* jvmti, JNIEnv* jni);

 private:
  void open_requests(JavaVM* vm, hotspot::AsgctFunction asgct, std::unique_ptr<RequestPool> pool);
  // Where HotSpot keeps its code heaps' bounds, for the native unwinder (capture_state()).
  static void learn_code_heap(CaptureState& state);
  // Enable in the start phase: a native thread finishes it once the VM has started.
  void start_completer(JavaVM* vm);
  void complete_when_started(JavaVM* vm);
  void stop_completer();
  // compiled_unseen: the VM may have compiled code before jvmkit's environment recorded compilations.
  jvmtiError live_setup(JNIEnv* jni, bool compiled_unseen);
  // Undoes Enable (lifecycle_ held). dead: the VM is in the dead phase, no callback can run.
  void teardown(bool dead);
  void print_debug_summary() const;

  OwnEnv& env_;
  ThreadRegistry& threads_;
  EnvOffset& env_offset_;
  FrameTypes& frame_types_;
  CodeMap& code_map_;  // read by the capture side through capture_state().code_map
  const Deliverer& deliverer_;
  DeliveryThread& delivery_thread_;

  std::mutex lifecycle_;  // serialises enable/disable
  bool enabled_ = false;
  std::atomic<JavaVM*> given_vm_{nullptr};  // from JvmkitSetJavaVM
  jint max_frames_ = kDefaultStackDepth;    // from JvmkitSetMaxStackDepth (lifecycle_ held)
  jint native_mode_ = 0;                    // from JvmkitSetNativeFrames (lifecycle_ held)
  NativeTables native_tables_;              // a session with native frames: read through capture_state()
  std::unique_ptr<RequestPool> pool_;
  std::atomic<bool> completer_stop_{false};
  std::atomic<bool> completer_running_{false};
};

}  // namespace jvmkit::walk
