// A small agent for RequestStackTrace with an explicit thread that names a virtual thread
// (jvmkit.test.walk21.OtherVirtualMain): its native traceOf(Thread) requests the thread's trace
// and waits for its one outcome, answered as text the Java side checks.
#include <jni.h>
#include <jvmkit/stack_walk.h>
#include <jvmti.h>

#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>

namespace {

jvmtiEnv* g_jvmti = nullptr;

// One request's outcome, filled by the callbacks on the delivery thread.
struct Outcome {
  std::mutex mutex;
  std::condition_variable done_changed;
  bool done = false;
  std::string text;  // "failure", or "biased=B thread=NAME frames=m1;m2;..."
};

std::string thread_name(jthread thread) {
  jvmtiThreadInfo info{};
  if (thread == nullptr || g_jvmti->GetThreadInfo(thread, &info) != JVMTI_ERROR_NONE || info.name == nullptr) {
    return "?";
  }
  std::string name = info.name;
  g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(info.name));
  return name;
}

void JNICALL on_begin(jthread thread, jboolean biased, void* user_data) {
  auto* out = static_cast<Outcome*>(user_data);
  out->text = "biased=" + std::to_string(biased) + " thread=" + thread_name(thread) + " frames=";
}

jint JNICALL on_frame(jvmtiFrameType, jmethodID method, jlocation, void* user_data) {
  auto* out = static_cast<Outcome*>(user_data);
  char* name = nullptr;
  if (g_jvmti->GetMethodName(method, &name, nullptr, nullptr) == JVMTI_ERROR_NONE) {
    out->text += std::string(name) + ";";
    g_jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
  }
  return JVMKIT_FRAME_CONTINUE;
}

void finish(Outcome* out) {
  std::lock_guard<std::mutex> lock(out->mutex);
  out->done = true;
  out->done_changed.notify_all();
}

void JNICALL on_end(jthread, void* user_data) { finish(static_cast<Outcome*>(user_data)); }

void JNICALL on_failure(jthread, void* user_data) {
  auto* out = static_cast<Outcome*>(user_data);
  out->text = std::string("failure ") + JvmkitFailureReasonName(JvmkitCurrentFailureReason());
  finish(out);
}

jstring JNICALL trace_of(JNIEnv* jni, jclass, jthread thread) {
  Outcome out;
  const jvmtiStackTraceCallbacks callbacks{on_begin, on_end, on_frame, on_failure};
  const jvmtiError err = RequestStackTrace(g_jvmti, &thread, nullptr, callbacks, &out);
  if (err != JVMTI_ERROR_NONE) return jni->NewStringUTF(("refused " + std::to_string(err)).c_str());
  std::unique_lock<std::mutex> lock(out.mutex);
  out.done_changed.wait(lock, [&] { return out.done; });
  return jni->NewStringUTF(out.text.c_str());
}

void JNICALL on_vm_init(jvmtiEnv*, JNIEnv* jni, jthread) {
  jclass main = jni->FindClass("jvmkit/test/walk21/OtherVirtualMain");
  if (main == nullptr) return;  // the program reports the missing native itself
  const JNINativeMethod methods[] = {{const_cast<char*>("traceOf"),
                                      const_cast<char*>("(Ljava/lang/Thread;)Ljava/lang/String;"),
                                      reinterpret_cast<void*>(&trace_of)}};
  jni->RegisterNatives(main, methods, 1);
}

}  // namespace

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char*, void*) {
  if (vm->GetEnv(reinterpret_cast<void**>(&g_jvmti), JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  jvmtiEventCallbacks callbacks{};
  callbacks.VMInit = on_vm_init;
  g_jvmti->SetEventCallbacks(&callbacks, sizeof(callbacks));
  g_jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, nullptr);
  return EnableRequestStackTrace(g_jvmti) == JVMTI_ERROR_NONE ? JNI_OK : JNI_ERR;
}
