#include "hotspot/java_thread.hpp"

#include <limits.h>
#include <pthread.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

#include "hotspot/vm_flags.hpp"
#include "hotspot/vm_structs.hpp"

namespace jvmkit::hotspot {

namespace {

// A JNIEnv sits inside the JavaThread object, a few hundred bytes to ~2 KiB in on JDK 17-25.
constexpr intptr_t kMaxEnvOffset = 1 << 14;

std::mutex g_learn_mutex;
JavaThreadLayout g_layout;  // written once under g_learn_mutex, before g_known publishes it
std::atomic<const JavaThreadLayout*> g_known{nullptr};

std::atomic<jfieldID> g_eetop_field{nullptr};

// HotSpot's pthread key for the current Thread*, or -1 while unknown. Written once under
// g_learn_mutex.
std::atomic<long> g_thread_key{-1};

// The one pthread key whose value on the current thread holds ENV: a pointer ENV_OFFSET below ENV
// (the JavaThread; any plausible offset when ENV_OFFSET is unknown). nullopt (and WHY) when there is
// none, or more than one (another library keeping a nearby pointer would make the answer ambiguous).
std::optional<long> find_key_holding(JNIEnv* env, std::optional<intptr_t> env_offset, std::string* why) {
  std::optional<long> found;
  for (long key = 0; key < PTHREAD_KEYS_MAX; key++) {
    const void* value = pthread_getspecific(static_cast<pthread_key_t>(key));
    if (value == nullptr) continue;
    const intptr_t offset = reinterpret_cast<intptr_t>(env) - reinterpret_cast<intptr_t>(value);
    if (env_offset ? offset != *env_offset : offset <= 0 || offset >= kMaxEnvOffset) continue;
    if (found) {
      if (why != nullptr) *why = "more than one pthread key holds the JavaThread";
      return std::nullopt;
    }
    found = key;
  }
  if (!found && why != nullptr) *why = "no pthread key holds the JavaThread";
  return found;
}

// Thread.eetop's field ID, looked up once (java.lang.Thread is never unloaded), or nullptr.
jfieldID eetop_field(JNIEnv* env) {
  if (jfieldID field = g_eetop_field.load(std::memory_order_acquire)) return field;
  jclass thread_class = env->FindClass("java/lang/Thread");
  jfieldID field = thread_class == nullptr ? nullptr : env->GetFieldID(thread_class, "eetop", "J");
  if (field == nullptr) env->ExceptionClear();
  if (thread_class != nullptr) env->DeleteLocalRef(thread_class);
  if (field != nullptr) g_eetop_field.store(field, std::memory_order_release);
  return field;
}

// The current thread's java.lang.Thread (a local reference), or nullptr.
jobject current_thread(JNIEnv* env) {
  jclass thread_class = env->FindClass("java/lang/Thread");
  if (thread_class == nullptr) {
    env->ExceptionClear();
    return nullptr;
  }
  jobject self = nullptr;
  jmethodID current = env->GetStaticMethodID(thread_class, "currentThread", "()Ljava/lang/Thread;");
  if (current != nullptr) self = env->CallStaticObjectMethod(thread_class, current);
  if (env->ExceptionCheck()) {
    env->ExceptionClear();
    self = nullptr;
  }
  env->DeleteLocalRef(thread_class);
  return self;
}

// The current thread's stack as glibc knows it: what HotSpot itself records at thread start.
std::optional<StackRange> pthread_stack() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return std::nullopt;
  void* address = nullptr;
  size_t size = 0;
  int rc = pthread_attr_getstack(&attr, &address, &size);
  pthread_attr_destroy(&attr);
  if (rc != 0) return std::nullopt;
  const auto lo = reinterpret_cast<uintptr_t>(address);
  return StackRange{lo, lo + size};
}

// The pending-exception offset is right if the field is set exactly while an exception we threw
// is pending.
bool pending_field_tracks_exceptions(JNIEnv* env, const JavaThreadLayout& layout) {
  if (layout.has_pending_exception(env)) return false;
  jclass error_class = env->FindClass("java/lang/IllegalStateException");
  if (error_class == nullptr) {
    env->ExceptionClear();
    return false;
  }
  const bool thrown = env->ThrowNew(error_class, "jvmkit: checking the JavaThread layout") == 0;
  const bool seen = layout.has_pending_exception(env);
  env->ExceptionClear();
  env->DeleteLocalRef(error_class);
  return thrown && seen && !layout.has_pending_exception(env);
}

// Thread.tid of THREAD, read through JNI (the field exists on JDK 17 to 25), or 0.
jlong java_thread_id_of(JNIEnv* env, jobject thread) {
  jclass thread_class = env->FindClass("java/lang/Thread");
  jfieldID tid = thread_class == nullptr ? nullptr : env->GetFieldID(thread_class, "tid", "J");
  if (tid == nullptr) env->ExceptionClear();
  if (thread_class != nullptr) env->DeleteLocalRef(thread_class);
  return tid == nullptr || thread == nullptr ? 0 : env->GetLongField(thread, tid);
}

// The JavaThread's current Java thread id (optional: without it virtual threads are not told from
// their carriers). Checked against Thread.tid on the current (platform) thread.
void learn_java_thread_id(JNIEnv* env, JavaThreadLayout* layout) {
  std::optional<intptr_t> field = vm_struct_offset("JavaThread", "_monitor_owner_id");
  if (!field) field = vm_struct_offset("JavaThread", "_lock_id");
  if (!field) return;
  layout->java_thread_id = *field;
  jobject self = current_thread(env);
  const jlong expected = java_thread_id_of(env, self);
  if (self != nullptr) env->DeleteLocalRef(self);
  if (expected == 0 || layout->current_java_thread_id(env) != expected) layout->java_thread_id = -1;
}

// JDK 21 to 23 (no _monitor_owner_id), or any JDK when JVMKIT_WALK_THREAD_ID_BY_HANDLE=1 asks for
// it (the tests exercise this path on a newer JDK): the id through the current Java thread's handle.
// Checked on the current (platform) thread: in native code, its handle holds its own Thread, whose
// tid must lie at exactly one offset of the object's first words.
void learn_thread_id_by_handle(JNIEnv* env, JavaThreadLayout* layout) {
  const bool plain_addresses = bool_flag("UseSerialGC").value_or(false) || bool_flag("UseParallelGC").value_or(false) ||
                               bool_flag("UseG1GC").value_or(false);
  const std::optional<intptr_t> state = vm_struct_offset("JavaThread", "_thread_state");
  const std::optional<intptr_t> handle = vm_struct_offset("JavaThread", "_vthread");
  const std::optional<intptr_t> slot = vm_struct_offset("OopHandle", "_obj");
  if (!plain_addresses || !state || !handle || !slot || *slot != 0) return;
  const char* thread = reinterpret_cast<const char*>(env) - layout->env_offset;
  int32_t current_state;
  std::memcpy(&current_state, thread + *state, sizeof(current_state));
  if (current_state != JavaThreadLayout::kThreadInNative) return;
  const char* const* oop_slot;
  std::memcpy(&oop_slot, thread + *handle, sizeof(oop_slot));
  jobject self = current_thread(env);
  const jlong tid = java_thread_id_of(env, self);
  if (self != nullptr) env->DeleteLocalRef(self);
  if (oop_slot == nullptr || *oop_slot == nullptr || tid <= 0) return;
  // The thread cannot be moved meanwhile: it is in native code, the collector updates the slot
  // only at a safepoint, and this thread reads its own object between JNI calls.
  constexpr intptr_t kSearched = 256;
  intptr_t found = -1;
  for (intptr_t offset = 8; offset < kSearched; offset += 8) {
    jlong word;
    std::memcpy(&word, *oop_slot + offset, sizeof(word));
    if (word != tid) continue;
    if (found >= 0) return;  // ambiguous
    found = offset;
  }
  if (found < 0) return;
  layout->thread_state = *state;
  layout->current_thread_handle = *handle;
  layout->tid_in_thread = found;
}

// The frame anchor's fields (optional: without them the stack walk types fewer frames exactly).
void learn_anchor(JavaThreadLayout* layout) {
  const std::optional<intptr_t> anchor = vm_struct_offset("JavaThread", "_anchor");
  const std::optional<intptr_t> sp = vm_struct_offset("JavaFrameAnchor", "_last_Java_sp");
  const std::optional<intptr_t> fp = vm_struct_offset("JavaFrameAnchor", "_last_Java_fp");
  const std::optional<intptr_t> pc = vm_struct_offset("JavaFrameAnchor", "_last_Java_pc");
  if (!anchor || !sp || !fp || !pc) return;
  layout->anchor_sp = *anchor + *sp;
  layout->anchor_fp = *anchor + *fp;
  layout->anchor_pc = *anchor + *pc;
  const std::optional<intptr_t> wrapper = vm_struct_offset("JavaCallWrapper", "_anchor");
  if (!wrapper) return;
  layout->wrapper_anchor_sp = *wrapper + *sp;
  layout->wrapper_anchor_fp = *wrapper + *fp;
  layout->wrapper_anchor_pc = *wrapper + *pc;
}

// Everything the layout needs, read and checked; nullopt (and WHY) on the first failure.
std::optional<JavaThreadLayout> probe(JNIEnv* env, std::string* why) {
  auto fail = [why](const char* reason) {
    if (why != nullptr) *why = reason;
    return std::nullopt;
  };
  if (env->ExceptionCheck()) return fail("an exception is pending");
  JavaThreadLayout layout;
  std::optional<intptr_t> base = vm_struct_offset("JavaThread", "_stack_base");
  if (!base) base = vm_struct_offset("Thread", "_stack_base");
  std::optional<intptr_t> size = vm_struct_offset("JavaThread", "_stack_size");
  if (!size) size = vm_struct_offset("Thread", "_stack_size");
  std::optional<intptr_t> pending = vm_struct_offset("ThreadShadow", "_pending_exception");
  if (!base || !size || !pending) return fail("gHotSpotVMStructs lacks the thread's stack or exception fields");
  layout.stack_base = *base;
  layout.stack_size = *size;
  layout.pending_exception = *pending;

  const std::optional<intptr_t> env_offset = current_env_offset(env);
  if (!env_offset) return fail("Thread.eetop is unset or implausible on this thread");
  layout.env_offset = *env_offset;
  learn_anchor(&layout);
  layout.saved_exception_pc = vm_struct_offset("JavaThread", "_saved_exception_pc").value_or(-1);
  learn_java_thread_id(env, &layout);
  const char* by_handle = std::getenv("JVMKIT_WALK_THREAD_ID_BY_HANDLE");
  if (by_handle != nullptr && std::strcmp(by_handle, "1") == 0) layout.java_thread_id = -1;
  if (layout.java_thread_id < 0) learn_thread_id_by_handle(env, &layout);
  // A platform thread that enables runs no continuation: the field must read 0 here.
  layout.cont_entry = vm_struct_offset("JavaThread", "_cont_entry").value_or(-1);
  if (layout.runs_continuation(env)) layout.cont_entry = -1;

  // HotSpot records the pthread stack's top as is, and its size less any glibc guard area.
  const std::optional<StackRange> real = pthread_stack();
  if (!real) return fail("pthread_getattr_np failed");
  const StackRange read = layout.stack_of(env);
  const auto here = reinterpret_cast<uintptr_t>(&layout);
  if (read.hi != real->hi || read.lo < real->lo || !read.contains(here)) {
    return fail("the JavaThread stack fields do not match the thread's stack");
  }
  // Called from native code (JNI or a JVMTI callback), the thread's anchor is set or, when it has
  // no Java frame yet, empty; either way its sp lies on this stack or is 0.
  const LastJavaFrame last = layout.last_java_frame(env);
  if (last.sp != 0 && (!read.contains(last.sp) || last.sp <= here)) {
    layout.anchor_sp = layout.anchor_fp = layout.anchor_pc = -1;
    layout.wrapper_anchor_sp = layout.wrapper_anchor_fp = layout.wrapper_anchor_pc = -1;
  }
  if (!pending_field_tracks_exceptions(env, layout)) {
    return fail("the pending-exception field does not follow Throw and ExceptionClear");
  }
  return layout;
}

}  // namespace

jlong java_thread_address(JNIEnv* env, jobject thread) {
  jfieldID field = eetop_field(env);
  return field == nullptr || thread == nullptr ? 0 : env->GetLongField(thread, field);
}

std::optional<intptr_t> current_env_offset(JNIEnv* env) {
  jobject self = current_thread(env);
  const jlong eetop = java_thread_address(env, self);
  if (self != nullptr) env->DeleteLocalRef(self);
  if (eetop == 0) return std::nullopt;
  const intptr_t offset = reinterpret_cast<intptr_t>(env) - static_cast<intptr_t>(eetop);
  if (offset <= 0 || offset >= kMaxEnvOffset) return std::nullopt;
  return offset;
}

const JavaThreadLayout* learn_java_thread_layout(JNIEnv* env, std::string* why) {
  if (const JavaThreadLayout* known = g_known.load(std::memory_order_acquire)) return known;
  std::lock_guard<std::mutex> lock(g_learn_mutex);
  if (const JavaThreadLayout* known = g_known.load(std::memory_order_acquire)) return known;
  std::optional<JavaThreadLayout> layout = probe(env, why);
  if (!layout) return nullptr;
  g_layout = *layout;
  g_known.store(&g_layout, std::memory_order_release);
  return &g_layout;
}

const JavaThreadLayout* known_java_thread_layout() noexcept { return g_known.load(std::memory_order_acquire); }

void publish_java_thread_layout_for_testing(const JavaThreadLayout& layout) {
  std::lock_guard<std::mutex> lock(g_learn_mutex);
  g_layout = layout;
  g_known.store(&g_layout, std::memory_order_release);
}

bool learn_thread_key(JNIEnv* env, std::string* why) {
  if (g_thread_key.load(std::memory_order_acquire) >= 0) return true;
  std::lock_guard<std::mutex> lock(g_learn_mutex);
  if (g_thread_key.load(std::memory_order_acquire) >= 0) return true;
  // Thread.eetop gives the exact JavaThread; on a virtual thread (eetop 0) the JNIEnv is the
  // carrier's, and the key is the one whose value lies a plausible distance below it.
  std::optional<long> key = find_key_holding(env, current_env_offset(env), why);
  if (!key) return false;
  g_thread_key.store(*key, std::memory_order_release);
  return true;
}

Attachment current_thread_attachment() noexcept {
  const long key = g_thread_key.load(std::memory_order_acquire);
  if (key < 0) return Attachment::kUnknown;
  // glibc's pthread_getspecific only reads the thread's own key arrays (HotSpot's signal handlers
  // rely on the same).
  return pthread_getspecific(static_cast<pthread_key_t>(key)) != nullptr ? Attachment::kAttached
                                                                         : Attachment::kDetached;
}

StackRange current_hotspot_thread_stack(const JavaThreadLayout& layout) noexcept {
  const long key = g_thread_key.load(std::memory_order_acquire);
  if (key < 0) return {};
  const auto* thread = static_cast<const char*>(pthread_getspecific(static_cast<pthread_key_t>(key)));
  if (thread == nullptr) return {};
  // _stack_base and _stack_size are fields of Thread, JavaThread's base class: the same offsets.
  uintptr_t base, size;
  std::memcpy(&base, thread + layout.stack_base, sizeof(base));
  std::memcpy(&size, thread + layout.stack_size, sizeof(size));
  if (size == 0 || size > base) return {};
  return {base - size, base};
}

}  // namespace jvmkit::hotspot
