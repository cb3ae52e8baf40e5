// jvmkit's own JVMTI environment (from JavaVM::GetEnv, never the caller's): its capabilities, the
// events the walker listens to, and the replays of what happened before Enable. Its event
// callbacks carry no user pointer: they reach the walker's parts through the one Library.
// Not signal context.
#pragma once

#include <jni.h>
#include <jvmti.h>

namespace jvmkit::walk {

class OwnEnv {
 public:
  // Creates the environment with its callbacks and enables the events every phase needs
  // (ClassLoad, ClassPrepare, ThreadStart/End, DynamicCodeGenerated, and CompiledMethodLoad/Unload
  // and VirtualThreadStart/End where the VM offers them). On an error nothing is kept.
  jvmtiError create(JavaVM* vm);
  // Enabled in Agent_OnLoad: VMStart (the thread key) and VMInit (the live-phase setup).
  void listen_for_vm_start_and_init();
  // Code generated before Enable: replays its events (stubs and the interpreter for recovery,
  // compiled methods for recovery and frame types). compiled_unseen: the VM may have compiled
  // code before this environment recorded compilations.
  void replay_generated_code(bool compiled_unseen);
  // Creates the jmethodIDs of every class loaded so far (ClassPrepare does it for later ones).
  void create_method_ids(JNIEnv* jni);
  // Disables every event and disposes the environment (its capabilities go with it). Nothing to
  // do when there is none (enabled in the start phase, disabled before the VM had started).
  void dispose();

  // nullptr while there is none. Set before the request gate opens, cleared only after Disable
  // saw the gate empty and the delivery thread gone.
  jvmtiEnv* get() const { return env_; }

 private:
  jvmtiEnv* env_ = nullptr;
  bool have_compiled_method_load_ = false;
  bool have_virtual_threads_ = false;  // can_support_virtual_threads (JDK 21+)
};

}  // namespace jvmkit::walk
