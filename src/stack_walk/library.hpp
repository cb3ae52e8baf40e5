// The stack-walk library's one process-wide root. It owns the parts and routes to them the C API's
// calls (api.cpp) and the events of jvmkit's own JVMTI environment (own_env.cpp):
//
//   Session               Enable/Disable, the own environment's life, probing the JVM
//   OwnEnv                jvmkit's own jvmtiEnv: capabilities, events, replays
//   DeliveryThread        the agent thread's loop: when to take requests, when to sleep
//   Deliverer             one request -> its one outcome
//   request_other_thread  RequestStackTrace for an explicit thread
//   (signal/capture.cpp   RequestStackTrace for the current thread, in signal context)
//
// and the state they share: the thread registry, the JNIEnv offset, the fallback frame types and
// the code map. JVMTI callbacks carry no user pointer, and a callback that races with Disable must
// still find valid objects: the root is never destroyed, only reset (Session's teardown).
// Not signal context.
#pragma once

#include <jni.h>
#include <jvmkit/stack_walk.h>
#include <jvmti.h>

#include "stack_walk/code_map.hpp"
#include "stack_walk/current_thread_request.hpp"
#include "stack_walk/deliverer.hpp"
#include "stack_walk/delivery_thread.hpp"
#include "stack_walk/fallback_frame_types.hpp"
#include "stack_walk/own_env.hpp"
#include "stack_walk/session.hpp"
#include "stack_walk/signal/native_capture.hpp"
#include "stack_walk/thread_registry.hpp"
#include "stack_walk/virtual_thread_table.hpp"

namespace jvmkit::walk {

class Library {
 public:
  static Library& instance();

  // The C API.
  jvmtiError enable(jvmtiEnv* caller_env) { return session_.enable(caller_env); }
  jvmtiError disable(jvmtiEnv* caller_env) { return session_.disable(caller_env); }
  void set_java_vm(JavaVM* vm) { session_.set_java_vm(vm); }
  jvmtiError set_max_frames(jint max_frames) { return session_.set_max_frames(max_frames); }
  jvmtiError request_thread(jthread thread, void* ucontext, const jvmtiStackTraceCallbacks& callbacks, void* user_data,
                            const NativeAsk* native = nullptr);
  jvmtiError set_native_frames(jint mode) { return session_.set_native_frames(mode); }
  jvmtiError request_current_now(const jvmtiStackTraceCallbacks& callbacks, void* user_data) {
    return request_current_thread_now(env_, callbacks, user_data);
  }

  // For the own environment's event callbacks.
  Session& session() { return session_; }
  ThreadRegistry& threads() { return threads_; }
  FrameTypes& frame_types() { return frame_types_; }
  CodeMap& code_map() { return code_map_; }
  VirtualThreadTable& virtual_threads() { return virtual_threads_; }

 private:
  Library() = default;

  // Declared before the parts that refer to them.
  ThreadRegistry threads_;
  EnvOffset env_offset_;
  FrameTypes frame_types_;
  CodeMap code_map_;  // read by the capture side through capture_state().code_map
  VirtualThreadTable virtual_threads_;
  OwnEnv env_;
  Deliverer deliverer_{env_, threads_, env_offset_, frame_types_, virtual_threads_};
  DeliveryThread delivery_thread_{env_, deliverer_, threads_, env_offset_, code_map_, virtual_threads_};
  Session session_{env_, threads_, env_offset_, frame_types_, code_map_, deliverer_, delivery_thread_};
};

}  // namespace jvmkit::walk
