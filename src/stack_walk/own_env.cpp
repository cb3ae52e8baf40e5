#include "stack_walk/own_env.hpp"

#include <cstdint>
#include <cstring>

#include <jvmticmlr.h>

#include <memory>

#include "hotspot/continuation_layout.hpp"
#include "hotspot/jvmti_capabilities.hpp"
#include "hotspot/vm_flags.hpp"
#include "stack_walk/library.hpp"
#include "stack_walk/signal/capture.hpp"
#include "stack_walk/signal/x64/instructions.hpp"
#include "stack_walk/signal/x64/interpreter_entry.hpp"

namespace jvmkit::walk {

namespace {

// Set on the enabling thread while GenerateEvents replays the compilations that happened before a
// live-phase Enable without -XX:+DebugNonSafepoints (see CodeRange::coarse_debug_info).
thread_local bool t_replaying_coarse = false;

uint64_t published_now() {
  RequestPool::Producer* pool = capture_state().pool.load(std::memory_order_acquire);
  return pool ? pool->published() : 0;
}

void create_method_ids_of(jvmtiEnv* jvmti, jclass klass) {
  // GetClassMethods creates the jmethodIDs of all the class's methods; ASGCT reports a frame only
  // if its method already has one (it cannot create them in a signal handler).
  jint count = 0;
  jmethodID* methods = nullptr;
  if (jvmti->GetClassMethods(klass, &count, &methods) == JVMTI_ERROR_NONE) {
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(methods));
  }
  // Not yet prepared (array and primitive classes, or classes still loading): ClassPrepare follows.
}

// The exact records of the call sites and safepoint polls among COMPILE_INFO's inline records (a
// record whose PC directly follows a call instruction, or starts or follows a poll), for the nmethod at START of SIZE
// bytes; nullptr if none. Only those are kept: a walk describes a frame standing at a call, or
// stopped at a poll for a safepoint, and nothing else; they are a small part of the records (with
// -XX:+DebugNonSafepoints most records mark other instructions).
std::shared_ptr<const CallSites> call_sites_of(const void* compile_info, uintptr_t start, size_t size) {
  CodeRange code{};
  code.start = start;
  code.end = start + size;
  auto sites = std::make_shared<CallSites>();
  for (auto* h = static_cast<const jvmtiCompiledMethodLoadRecordHeader*>(compile_info); h != nullptr; h = h->next) {
    if (h->kind != JVMTI_CMLR_INLINE_INFO) continue;
    const auto* inline_info = reinterpret_cast<const jvmtiCompiledMethodLoadInlineRecord*>(h);
    for (jint i = 0; i < inline_info->numpcs; i++) {
      const PCStackInfo& pc = inline_info->pcinfo[i];
      const auto at = reinterpret_cast<uintptr_t>(pc.pc);
      if (at <= start || at > code.end) continue;
      if (!(follows_call(code, at) || follows_safepoint_poll(code, at) || starts_safepoint_poll(code, at))) continue;
      sites->add(static_cast<uint32_t>(at - start), pc.methods, pc.bcis, pc.numstackframes);
    }
  }
  if (sites->empty()) return nullptr;
  sites->shrink();
  return sites;
}

// The event callbacks: each routes to the part of the one Library that owns what it changes.
void JNICALL OnVmStart(jvmtiEnv* jvmti, JNIEnv* jni) { Library::instance().session().on_vm_start(jvmti, jni); }
void JNICALL OnVmInit(jvmtiEnv* jvmti, JNIEnv* jni, jthread) { Library::instance().session().on_vm_init(jvmti, jni); }
void JNICALL OnClassLoad(jvmtiEnv*, JNIEnv*, jthread, jclass) {
  // Nothing to do: AsyncGetCallTrace refuses to walk unless some environment has ClassLoad enabled.
}
void JNICALL OnClassPrepare(jvmtiEnv* jvmti, JNIEnv*, jthread, jclass klass) { create_method_ids_of(jvmti, klass); }
void JNICALL OnThreadStart(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  Library::instance().threads().add(jni, jni, thread, published_now(), true);
}
void JNICALL OnThreadEnd(jvmtiEnv*, JNIEnv* jni, jthread) { Library::instance().threads().end(jni, published_now()); }

void JNICALL OnVirtualThreadStart(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  hotspot::confirm_continuation_layout(jni, thread);
  Library::instance().virtual_threads().started(jni, thread);
}
void JNICALL OnVirtualThreadEnd(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  Library::instance().virtual_threads().ended(jni, thread, published_now());
}

// VirtualThreadStart and VirtualThreadEnd (JVMTI 21, events 87 and 88) with the JDK 17 header that
// jvmkit compiles against, whose jvmtiEventCallbacks ends before them: their two pointers follow
// it, where JDK 21's struct has them. A JVM copies as much of the struct as it knows.
constexpr jint kVirtualThreadStartEvent = 87;
constexpr jint kVirtualThreadEndEvent = 88;
using VirtualThreadEvent = void(JNICALL*)(jvmtiEnv*, JNIEnv*, jthread);
struct OwnCallbacks {
  jvmtiEventCallbacks base;
  VirtualThreadEvent virtual_start = nullptr;
  VirtualThreadEvent virtual_end = nullptr;
};
static_assert(sizeof(jvmtiEventCallbacks) == (86 - JVMTI_MIN_EVENT_TYPE_VAL + 1) * sizeof(void*),
              "jvmtiEventCallbacks is expected as the JDK 17 header declares it (up to SampledObjectAlloc)");

// Turns the virtual thread events on or off (JDK 21+; elsewhere the JVM refuses them, harmlessly).
void set_virtual_thread_events(jvmtiEnv* env, jvmtiEventMode mode) {
  for (jint event : {kVirtualThreadStartEvent, kVirtualThreadEndEvent}) {
    env->SetEventNotificationMode(mode, static_cast<jvmtiEvent>(event), nullptr);
  }
}
void JNICALL OnCompiledMethodLoad(jvmtiEnv* jvmti, jmethodID method, jint code_size, const void* code_addr, jint,
                                  const jvmtiAddrLocationMap*, const void* compile_info) {
  // Enabling this event also makes HotSpot record debug info at non-safepoint PCs
  // (DebugNonSafepoints), which lets ASGCT attribute PCs inside loops and inlined code exactly.
  Library& library = Library::instance();
  library.frame_types().compiled(method);
  const auto start = reinterpret_cast<uintptr_t>(code_addr);
  const auto size = static_cast<size_t>(code_size);
  // A native method's nmethod is HotSpot's wrapper around the JNI call: no inlining, no bytecode.
  jboolean native = JNI_FALSE;
  if (jvmti->IsMethodNative(method, &native) != JVMTI_ERROR_NONE) native = JNI_FALSE;
  library.code_map().add_nmethod(method, start, size, t_replaying_coarse, call_sites_of(compile_info, start, size),
                                 native == JNI_TRUE);
}
void JNICALL OnCompiledMethodUnload(jvmtiEnv*, jmethodID method, const void* code_addr) {
  Library& library = Library::instance();
  library.frame_types().unloaded(method);
  library.code_map().remove_nmethod(reinterpret_cast<uintptr_t>(code_addr));
}
void JNICALL OnDynamicCodeGenerated(jvmtiEnv*, const char* name, const void* address, jint length) {
  // The interpreter, named stubs (StubRoutines::dlog, vtable/itable stubs...) and other blobs.
  Library::instance().code_map().add_blob(name, reinterpret_cast<uintptr_t>(address), static_cast<size_t>(length));
  // Reported once its code is generated: its method entries can be read now (an Enable in
  // Agent_OnLoad found none).
  if (name != nullptr && std::strcmp(name, "Interpreter") == 0) learn_interpreter_entries();
}

}  // namespace

jvmtiError OwnEnv::create(JavaVM* vm) {
  jvmtiEnv* own = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&own), JVMTI_VERSION_1_2) != JNI_OK || own == nullptr) {
    return JVMTI_ERROR_NOT_AVAILABLE;
  }
  jvmtiCapabilities potential;
  std::memset(&potential, 0, sizeof(potential));
  jvmtiCapabilities wanted;
  std::memset(&wanted, 0, sizeof(wanted));
  if (own->GetPotentialCapabilities(&potential) == JVMTI_ERROR_NONE) {
    wanted.can_generate_compiled_method_load_events = potential.can_generate_compiled_method_load_events;
  }
  have_compiled_method_load_ =
      wanted.can_generate_compiled_method_load_events && own->AddCapabilities(&wanted) == JVMTI_ERROR_NONE;
  // For the virtual thread events and HotSpot's GetVirtualThread (virtual_threads.hpp): JDK 21+.
  if (hotspot::can_support_virtual_threads(potential)) {
    jvmtiCapabilities virtual_threads;
    std::memset(&virtual_threads, 0, sizeof(virtual_threads));
    hotspot::set_can_support_virtual_threads(&virtual_threads);
    have_virtual_threads_ = own->AddCapabilities(&virtual_threads) == JVMTI_ERROR_NONE;
  }

  OwnCallbacks own_callbacks{};
  jvmtiEventCallbacks& callbacks = own_callbacks.base;
  own_callbacks.virtual_start = OnVirtualThreadStart;
  own_callbacks.virtual_end = OnVirtualThreadEnd;
  callbacks.VMStart = OnVmStart;
  callbacks.VMInit = OnVmInit;
  callbacks.ClassLoad = OnClassLoad;
  callbacks.ClassPrepare = OnClassPrepare;
  callbacks.ThreadStart = OnThreadStart;
  callbacks.ThreadEnd = OnThreadEnd;
  callbacks.CompiledMethodLoad = OnCompiledMethodLoad;
  callbacks.CompiledMethodUnload = OnCompiledMethodUnload;
  callbacks.DynamicCodeGenerated = OnDynamicCodeGenerated;
  jvmtiError err = own->SetEventCallbacks(&callbacks, static_cast<jint>(sizeof(own_callbacks)));
  if (err != JVMTI_ERROR_NONE) {
    own->DisposeEnvironment();
    return err;
  }
  for (jvmtiEvent event :
       {JVMTI_EVENT_CLASS_LOAD, JVMTI_EVENT_CLASS_PREPARE, JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END}) {
    own->SetEventNotificationMode(JVMTI_ENABLE, event, nullptr);
  }
  own->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_DYNAMIC_CODE_GENERATED, nullptr);
  if (have_compiled_method_load_) {
    own->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD, nullptr);
    own->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_UNLOAD, nullptr);
  }
  if (have_virtual_threads_) set_virtual_thread_events(own, JVMTI_ENABLE);
  env_ = own;
  return JVMTI_ERROR_NONE;
}

void OwnEnv::listen_for_vm_start_and_init() {
  env_->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_START, nullptr);
  env_->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, nullptr);
}

void OwnEnv::replay_generated_code(bool compiled_unseen) {
  // Duplicates of events already seen replace the same entries.
  env_->GenerateEvents(JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
  if (have_compiled_method_load_) {
    // In the OnLoad phase nothing was compiled yet. Later, code compiled before has debug records
    // at non-safepoint PCs only if the flag asked for them (or another environment recorded
    // compilations then, which jvmkit cannot see: such code is reported biased too).
    t_replaying_coarse = compiled_unseen && !hotspot::bool_flag("DebugNonSafepoints").value_or(false);
    env_->GenerateEvents(JVMTI_EVENT_COMPILED_METHOD_LOAD);
    t_replaying_coarse = false;
  }
}

void OwnEnv::create_method_ids(JNIEnv* jni) {
  jint count = 0;
  jclass* classes = nullptr;
  if (env_->GetLoadedClasses(&count, &classes) != JVMTI_ERROR_NONE) return;
  for (jint i = 0; i < count; i++) {
    create_method_ids_of(env_, classes[i]);
    jni->DeleteLocalRef(classes[i]);
  }
  env_->Deallocate(reinterpret_cast<unsigned char*>(classes));
}

void OwnEnv::dispose() {
  if (env_ != nullptr) {
    for (jvmtiEvent event :
         {JVMTI_EVENT_VM_START, JVMTI_EVENT_VM_INIT, JVMTI_EVENT_CLASS_LOAD, JVMTI_EVENT_CLASS_PREPARE,
          JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END, JVMTI_EVENT_COMPILED_METHOD_LOAD,
          JVMTI_EVENT_COMPILED_METHOD_UNLOAD, JVMTI_EVENT_DYNAMIC_CODE_GENERATED}) {
      env_->SetEventNotificationMode(JVMTI_DISABLE, event, nullptr);
    }
    if (have_virtual_threads_) set_virtual_thread_events(env_, JVMTI_DISABLE);
    env_->DisposeEnvironment();
  }
  env_ = nullptr;
}

}  // namespace jvmkit::walk
