#include "core/java_thread.hpp"

#include <pthread.h>

#include <atomic>
#include <mutex>
#include <optional>

#include "core/vm_structs.hpp"

namespace jvmkit::hotspot {

namespace {

// A JNIEnv sits inside the JavaThread object, a few hundred bytes to ~2 KiB in on JDK 17-25.
constexpr intptr_t kMaxEnvOffset = 1 << 14;

std::mutex g_learn_mutex;
JavaThreadLayout g_layout;  // written once under g_learn_mutex, before g_known publishes it
std::atomic<const JavaThreadLayout*> g_known{nullptr};

// java.lang.Thread.eetop of the current thread: its JavaThread address, or 0 (e.g. a virtual
// thread, whose eetop is unused).
jlong current_eetop(JNIEnv* env) {
  jclass thread_class = env->FindClass("java/lang/Thread");
  if (thread_class == nullptr) return 0;
  jlong eetop = 0;
  jfieldID eetop_field = env->GetFieldID(thread_class, "eetop", "J");
  jmethodID current = env->GetStaticMethodID(thread_class, "currentThread", "()Ljava/lang/Thread;");
  if (eetop_field != nullptr && current != nullptr) {
    jobject self = env->CallStaticObjectMethod(thread_class, current);
    if (env->ExceptionCheck()) {
      env->DeleteLocalRef(thread_class);
      return 0;  // the caller reports it
    }
    if (self != nullptr) {
      eetop = env->GetLongField(self, eetop_field);
      env->DeleteLocalRef(self);
    }
  }
  env->DeleteLocalRef(thread_class);
  return eetop;
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

  const jlong eetop = current_eetop(env);
  if (env->ExceptionCheck()) {
    env->ExceptionClear();
    return fail("reading Thread.eetop threw");
  }
  if (eetop == 0) return fail("Thread.eetop is not set on this thread");
  layout.env_offset = reinterpret_cast<intptr_t>(env) - static_cast<intptr_t>(eetop);
  if (layout.env_offset <= 0 || layout.env_offset >= kMaxEnvOffset) return fail("Thread.eetop is implausible");

  // HotSpot records the pthread stack's top as is, and its size less any glibc guard area.
  const std::optional<StackRange> real = pthread_stack();
  if (!real) return fail("pthread_getattr_np failed");
  const StackRange read = layout.stack_of(env);
  const auto here = reinterpret_cast<uintptr_t>(&layout);
  if (read.hi != real->hi || read.lo < real->lo || !read.contains(here)) {
    return fail("the JavaThread stack fields do not match the thread's stack");
  }
  if (!pending_field_tracks_exceptions(env, layout)) {
    return fail("the pending-exception field does not follow Throw and ExceptionClear");
  }
  return layout;
}

}  // namespace

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

}  // namespace jvmkit::hotspot
