#include "profiler/context/context_agent.hpp"

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>

#include "base/thread_id.hpp"
#include "hotspot/java_thread.hpp"
#include "profiler/context/label_sets.hpp"
#include "profiler/utf8.hpp"

#define JVMKIT_PROF_EXPORT __attribute__((visibility("default")))

namespace jvmkit::prof {
namespace {

// Threads with a context at once (platform and virtual); 128 bytes each, allocated at the first
// registration.
constexpr uint32_t kSlots = 16384;

enum class KeyMode : int { kUndecided, kJavaThread, kOsThread };

struct ContextState {
  std::atomic<JavaVM*> vm{nullptr};
  std::atomic<KeyMode> mode{KeyMode::kUndecided};
  std::atomic<ContextSlots*> slots{nullptr};  // never freed: Java holds buffers over its cells
  std::atomic<int64_t> threads_refused{0};
  SampleContextPool pool;
};
constinit ContextState g_state;
std::mutex g_slots_mutex;

constexpr const char* kClassSignature = "Lorg/jvmkit/JvmkitContext;";

KeyMode decide_mode(JNIEnv* jni) {
  KeyMode mode = g_state.mode.load(std::memory_order_acquire);
  if (mode != KeyMode::kUndecided) return mode;
  const hotspot::JavaThreadLayout* layout = hotspot::known_java_thread_layout();
  if (layout == nullptr && jni != nullptr) layout = hotspot::learn_java_thread_layout(jni);
  mode = layout != nullptr && layout->java_thread_id >= 0 ? KeyMode::kJavaThread : KeyMode::kOsThread;
  KeyMode expected = KeyMode::kUndecided;
  g_state.mode.compare_exchange_strong(expected, mode, std::memory_order_acq_rel);
  return g_state.mode.load(std::memory_order_acquire);
}

// SIGNAL SAFE. The current thread's key: its Java thread's id, or its OS id; 0 when unknown.
JVMKIT_SIGNAL_SAFE int64_t current_key(pid_t tid) noexcept {
  const KeyMode mode = g_state.mode.load(std::memory_order_acquire);
  if (mode == KeyMode::kOsThread) return tid;
  if (mode != KeyMode::kJavaThread) return 0;
  const hotspot::JavaThreadLayout* layout = hotspot::known_java_thread_layout();
  JavaVM* vm = g_state.vm.load(std::memory_order_acquire);
  // GetEnv only on a thread HotSpot has attached (hotspot/java_thread.hpp, Attachment): on one it
  // is still starting, its first thread-local read may malloc.
  if (layout == nullptr || vm == nullptr || hotspot::current_thread_attachment() != hotspot::Attachment::kAttached) {
    return 0;
  }
  JNIEnv* jni = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) != JNI_OK || jni == nullptr) return 0;
  return layout->current_java_thread_id(jni);
}

// Normal context: the key of the current thread, whose JNIEnv is JNI; 0 when unknown.
int64_t key_of(JNIEnv* jni) {
  if (decide_mode(jni) == KeyMode::kOsThread) return jvmkit::current_tid();
  const hotspot::JavaThreadLayout* layout = hotspot::known_java_thread_layout();
  return layout != nullptr && jni != nullptr ? layout->current_java_thread_id(jni) : 0;
}

ContextSlots* slots_for_registration() {
  if (ContextSlots* s = g_state.slots.load(std::memory_order_acquire)) return s;
  std::lock_guard<std::mutex> lock(g_slots_mutex);
  if (ContextSlots* s = g_state.slots.load(std::memory_order_acquire)) return s;
  auto* s = new ContextSlots(kSlots);
  g_state.slots.store(s, std::memory_order_release);
  return s;
}

void set_active(JNIEnv* jni, jclass klass) {
  jfieldID active = jni->GetStaticFieldID(klass, "active", "Z");
  if (active != nullptr) jni->SetStaticBooleanField(klass, active, JNI_TRUE);
  if (jni->ExceptionCheck()) jni->ExceptionClear();
}

// Attach: every JvmkitContext class loaded so far (one per class loader that loaded it).
void activate_loaded_classes(jvmtiEnv* jvmti, JNIEnv* jni) {
  jint count = 0;
  jclass* classes = nullptr;
  if (jvmti->GetLoadedClasses(&count, &classes) != JVMTI_ERROR_NONE) return;
  for (jint i = 0; i < count; i++) {
    char* signature = nullptr;
    if (jvmti->GetClassSignature(classes[i], &signature, nullptr) == JVMTI_ERROR_NONE && signature != nullptr) {
      if (std::strcmp(signature, kClassSignature) == 0) set_active(jni, classes[i]);
      jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
    }
    jni->DeleteLocalRef(classes[i]);
  }
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(classes));
}

std::string java_string(JNIEnv* jni, jstring s) {
  if (s == nullptr) return {};
  const char* chars = jni->GetStringUTFChars(s, nullptr);
  if (chars == nullptr) return {};
  std::string out = utf8_from_modified(chars);
  jni->ReleaseStringUTFChars(s, chars);
  return out;
}

}  // namespace

void prepare_context_labels(JavaVM* vm, jvmtiEnv* jvmti, JNIEnv* jni, bool live) {
  g_state.vm.store(vm, std::memory_order_release);
  if (jni == nullptr) return;
  decide_mode(jni);
  if (live && jvmti != nullptr) activate_loaded_classes(jvmti, jni);
}

void context_thread_ended(JNIEnv* jni) {
  ContextSlots* slots = g_state.slots.load(std::memory_order_acquire);
  if (slots == nullptr || jni == nullptr) return;
  const int64_t key = key_of(jni);
  if (key != 0) slots->release_key(key);
}

SampleContext current_sample_context(pid_t tid) noexcept {
  SampleContext out;
  const ContextSlots* slots = g_state.slots.load(std::memory_order_acquire);
  if (slots == nullptr) return out;
  const int64_t key = current_key(tid);
  if (key == 0 || !slots->read(key, &out)) return SampleContext{};
  return out;
}

uint32_t put_current_context(pid_t tid) noexcept {
  const SampleContext context = current_sample_context(tid);
  return context.empty() ? 0 : g_state.pool.put(context);
}

SampleContext take_sample_context(uint32_t record) noexcept { return g_state.pool.take(record); }

ContextFigures context_figures() {
  ContextFigures out;
  const ContextSlots* slots = g_state.slots.load(std::memory_order_acquire);
  out.used = slots != nullptr;
  out.by_java_thread = g_state.mode.load() == KeyMode::kJavaThread;
  if (slots != nullptr) out.slots = slots->counts();
  out.records_full = g_state.pool.full();
  out.threads_refused = g_state.threads_refused.load();
  const LabelSets::Counts sets = process_label_sets().counts();
  out.sets = static_cast<int64_t>(sets.sets);
  out.refused_sets = sets.refused;
  return out;
}

}  // namespace jvmkit::prof

// --- The natives of org.jvmkit.JvmkitContext (java/api/org/jvmkit/JvmkitContext.java), found by
// the JVM in this agent library by their JNI names. None throws: a refusal is a 0 or a null. ---
using jvmkit::prof::g_state;

extern "C" {

JVMKIT_PROF_EXPORT jboolean JNICALL Java_org_jvmkit_JvmkitContext_agentLoaded0(JNIEnv*, jclass) { return JNI_TRUE; }

// The current thread's cell as a direct buffer (kContextCellBytes), or null: no free slot, or a
// virtual thread (VIRTUAL_THREAD) on a JVM that keys slots by OS thread.
JVMKIT_PROF_EXPORT jobject JNICALL Java_org_jvmkit_JvmkitContext_attach0(JNIEnv* jni, jclass, jboolean virtual_thread) {
  using namespace jvmkit::prof;
  const KeyMode mode = decide_mode(jni);
  if (mode == KeyMode::kOsThread && virtual_thread == JNI_TRUE) {
    g_state.threads_refused.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  if (g_state.vm.load(std::memory_order_acquire) == nullptr) {
    JavaVM* vm = nullptr;
    if (jni->GetJavaVM(&vm) == JNI_OK) g_state.vm.store(vm, std::memory_order_release);
  }
  const int64_t key = key_of(jni);
  if (key == 0) return nullptr;
  int64_t token = 0;
  ContextCell* cell = slots_for_registration()->acquire(key, &token);
  if (cell == nullptr) return nullptr;
  return jni->NewDirectByteBuffer(cell, static_cast<jlong>(kContextCellBytes));
}

JVMKIT_PROF_EXPORT void JNICALL Java_org_jvmkit_JvmkitContext_release0(JNIEnv*, jclass, jlong token) {
  if (jvmkit::prof::ContextSlots* slots = g_state.slots.load(std::memory_order_acquire)) slots->release(token);
}

JVMKIT_PROF_EXPORT jint JNICALL Java_org_jvmkit_JvmkitContext_label0(JNIEnv* jni, jclass, jstring key, jstring value) {
  using namespace jvmkit::prof;
  return static_cast<jint>(process_label_sets().intern_label(java_string(jni, key), java_string(jni, value)));
}

JVMKIT_PROF_EXPORT jint JNICALL Java_org_jvmkit_JvmkitContext_set0(JNIEnv*, jclass, jint parent, jint label) {
  return static_cast<jint>(
      jvmkit::prof::process_label_sets().intern_set(static_cast<uint32_t>(parent), static_cast<uint32_t>(label)));
}

}  // extern "C"
