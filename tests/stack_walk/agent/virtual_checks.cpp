// Virtual threads in the callbacks' checks: which thread a trace of a mounted virtual thread is
// reported for, and how many such traces came.
#include <cstring>

#include "agent.hpp"
#include "trace_state.hpp"
#include "virtual_checks.hpp"

namespace walktest {

// Traces of mounted virtual threads, those reported for the virtual thread itself, and frames of
// jdk.internal.vm.Continuation.enterSpecial (with resolve_every_frame).
std::atomic<int64_t> g_virtual_traces{0}, g_virtual_named{0}, g_enter_special_frames{0};

// The identity check of a trace of a mounted virtual thread: its carrier is the sampled thread; the
// thread reported is the virtual thread (its Thread.tid the id given), or the carrier as a
// stand-in when the library could not find it.
void check_virtual_identity(jthread thread, jlong id, const Tracked& t) {
  JNIEnv* jni = jni_env();
  jthread carrier = JvmkitCurrentCarrierThread();
  g_virtual_traces++;
  if (carrier == nullptr) {
    g_identity_mismatch++;
    violation("trace of virtual thread %lld without its carrier", (long long)id);
    return;
  }
  jvmtiThreadInfo info;
  std::memset(&info, 0, sizeof(info));
  if (g_jvmti->GetThreadInfo(carrier, &info) != JVMTI_ERROR_NONE || info.name == nullptr ||
      std::strcmp(info.name, t.name) != 0) {
    g_identity_mismatch++;
    violation("virtual thread trace requested by %s reported with carrier '%s'", t.name, info.name ? info.name : "?");
  }
  if (info.name) g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(info.name));
  if (info.thread_group) jni->DeleteLocalRef(info.thread_group);
  if (info.context_class_loader) jni->DeleteLocalRef(info.context_class_loader);
  if (jni->IsSameObject(thread, carrier)) return;
  jclass thread_class = jni->FindClass("java/lang/Thread");
  jfieldID tid = jni->GetFieldID(thread_class, "tid", "J");
  if (jni->GetLongField(thread, tid) != id) {
    g_identity_mismatch++;
    violation("virtual thread %lld reported as thread %lld", (long long)id, (long long)jni->GetLongField(thread, tid));
  } else {
    g_virtual_named++;
  }
  jni->DeleteLocalRef(thread_class);
}

VirtualSeen virtual_seen() { return {g_virtual_traces.load(), g_virtual_named.load(), g_enter_special_frames.load()}; }

}  // namespace walktest
