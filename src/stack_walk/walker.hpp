// The stack walker's life cycle (Enable/Disable), its own jvmtiEnv and events, and the delivery
// thread. One process-wide instance: JVMTI callbacks carry no user pointer, and a callback that
// races with Disable must still find a valid object (it is never destroyed, only reset).
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "hotspot/asgct.hpp"
#include "stack_walk/code_map.hpp"
#include "stack_walk/fallback_frame_types.hpp"
#include "stack_walk/request_pool.hpp"
#include "stack_walk/thread_registry.hpp"
#include "stack_walk/thread_roots.hpp"

namespace jvmkit::walk {

class Walker {
 public:
  static Walker& instance();

  jvmtiError enable(jvmtiEnv* caller_env);
  jvmtiError disable(jvmtiEnv* caller_env);
  void set_java_vm(JavaVM* vm) { given_vm_.store(vm); }
  // RequestStackTrace for an explicit jthread (not signal context).
  jvmtiError request_thread(jthread thread, void* ucontext, const jvmtiStackTraceCallbacks& callbacks, void* user_data);

  // Event callbacks of jvmkit's own jvmtiEnv.
  void on_vm_start(jvmtiEnv* jvmti, JNIEnv* jni);
  void on_vm_init(jvmtiEnv* jvmti, JNIEnv* jni);
  void on_class_prepare(jvmtiEnv* jvmti, JNIEnv* jni, jclass klass);
  void on_thread_start(JNIEnv* jni, jthread thread);
  void on_thread_end(JNIEnv* jni);
  FrameTypes& frame_types() { return frame_types_; }
  CodeMap& code_map() { return code_map_; }

 private:
  enum class DeliveryState { kNotStarted, kRunning, kExited };

  jvmtiError create_own_env(JavaVM* vm);
  void open_requests(JavaVM* vm, hotspot::AsgctFunction asgct);
  // Enable in the start phase: a native thread finishes it once the VM has started.
  void start_completer(JavaVM* vm);
  void complete_when_started(JavaVM* vm);
  void stop_completer();
  // compiled_unseen: the VM may have compiled code before jvmkit's environment recorded compilations.
  jvmtiError live_setup(JNIEnv* jni, bool compiled_unseen);
  // Undoes Enable (lifecycle_ held). dead: the VM is in the dead phase, no callback can run.
  void teardown(bool dead);
  void create_method_ids(JNIEnv* jni);
  void warn_about_jdk();
  void learn_thread_layout(JNIEnv* jni);
  void learn_thread_facts(JNIEnv* jni);
  bool learn_thread_key(JNIEnv* jni);
  static void JNICALL delivery_main(jvmtiEnv* jvmti, JNIEnv* jni, void* arg);
  void delivery_loop(JNIEnv* jni);
  void drain_without_thread();
  void deliver(JNIEnv* jni, Request& request, uint64_t ticket);
  void deliver_captured(JNIEnv* jni, Request& request, uint64_t ticket);
  void deliver_biased(JNIEnv* jni, Request& request, jobject thread_ref);
  void fail(JNIEnv* jni, Request& request, jobject thread_ref, jvmkitFailureReason reason);
  // The thread of a captured request; ROOTED (optional) receives its ThreadRegistry "rooted" mark.
  jobject resolve_thread(JNIEnv* jni, JNIEnv* key, uint64_t ticket, bool* rooted = nullptr);
  // Whether a complete-looking trace of a thread that was seen with a root is cut short (see
  // thread_roots.hpp); marks the thread rooted when this trace ends in a root.
  bool cut_above_root(JNIEnv* jni, const Request& request, uint64_t ticket, bool rooted);

  std::mutex lifecycle_;  // serialises enable/disable
  bool enabled_ = false;
  std::atomic<JavaVM*> given_vm_{nullptr};  // from JvmkitSetJavaVM
  jvmtiEnv* jvmti_ = nullptr;               // jvmkit's own environment
  bool have_compiled_method_load_ = false;
  std::unique_ptr<RequestPool> pool_;
  ThreadRegistry threads_;
  EnvOffset env_offset_;
  FrameTypes frame_types_;
  ThreadRoots thread_roots_;  // delivery thread only
  CodeMap code_map_;  // read by the capture side through capture_state().code_map
  uint64_t last_scan_ns_ = 0;
  std::atomic<bool> completer_stop_{false};
  std::atomic<bool> completer_running_{false};

  std::mutex delivery_mutex_;
  std::condition_variable delivery_cv_;
  DeliveryState delivery_state_ = DeliveryState::kNotStarted;
  std::atomic<bool> stop_{false};
  std::vector<jvmtiFrameInfo> frame_buffer_;  // delivery thread only
  std::vector<int> type_buffer_;              // delivery thread only
  int64_t typed_exact_ = 0;                   // frames typed from the physical walk (diagnostics)
  int64_t typed_fallback_ = 0;                // ... and by the fallback
  int64_t cut_seen_by_walk_ = 0;              // traces failed cut_short by the physical walk
  int64_t cut_seen_by_root_ = 0;              // ... by their bottom frame (diagnostics)
};

}  // namespace jvmkit::walk
