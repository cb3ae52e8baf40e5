#include "profiler/events/park_hook.hpp"

#include "profiler/events/park_blocker.hpp"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.hpp"
#include "hotspot/elf_symbols.hpp"
#include "hotspot/java_vm.hpp"
#include "profiler/events/lock_sampler.hpp"

namespace jvmkit::prof {
namespace {

using ParkFunction = void(JNICALL*)(JNIEnv*, jobject, jboolean, jlong);

// The JVM's Unsafe.park function, once learnt (it never changes in a process).
std::atomic<ParkFunction> g_original{nullptr};
bool g_installed = false;  // guarded by g_install_mutex
std::mutex g_install_mutex;
jvmtiEnv* g_jvmti = nullptr;  // the profiler's environment, set before the wrapper is bound

const char kUnsafe[] = "jdk/internal/misc/Unsafe";

// The class of the current thread's park blocker (a local reference), or null when it has none.
jclass blocker_class(jvmtiEnv* jvmti, JNIEnv* jni) {
  jthread thread = nullptr;
  if (jvmti->GetCurrentThread(&thread) != JVMTI_ERROR_NONE) return nullptr;
  jclass klass = park_blocker_class(jni, thread);
  jni->DeleteLocalRef(thread);
  return klass;
}

void JNICALL park_wrapper(JNIEnv* jni, jobject unsafe, jboolean absolute, jlong time) {
  const ParkFunction original = g_original.load(std::memory_order_acquire);
  if (!lock_sampling_armed()) {
    original(jni, unsafe, absolute, time);
    return;
  }
  const int64_t start = jvmkit::monotonic_ns();
  original(jni, unsafe, absolute, time);
  const int64_t waited = jvmkit::monotonic_ns() - start;
  if (!lock_sampling_armed()) return;
  if (waited < lock_threshold_ns()) {
    lock_waited(g_jvmti, waited, nullptr, true);  // counted, not sampled
    return;
  }
  // The blocker is still set: LockSupport.park(blocker) clears it after Unsafe.park returns.
  jclass klass = blocker_class(g_jvmti, jni);
  lock_waited(g_jvmti, waited, klass, true);
  if (klass != nullptr) jni->DeleteLocalRef(klass);
}

Error bind_park(JNIEnv* jni, jclass unsafe, void* function) {
  const JNINativeMethod method{const_cast<char*>("park"), const_cast<char*>("(ZJ)V"), function};
  if (jni->RegisterNatives(unsafe, &method, 1) != JNI_OK) {
    jni->ExceptionClear();
    return Error("RegisterNatives(Unsafe.park) failed");
  }
  return Error::ok();
}

// Whether the NUL-terminated string at ADDRESS, inside libjvm, is TEXT.
bool libjvm_string_is(const elf::LoadedObject& jvm, const char* address, std::string_view text) {
  if (address == nullptr || !jvm.contains(reinterpret_cast<uintptr_t>(address), text.size() + 1)) return false;
  return std::string_view(address, text.size()) == text && address[text.size()] == '\0';
}

// The JVM's Unsafe.park function: the "park" row of the table HotSpot registers Unsafe's natives
// from (unsafe.cpp's jdk_internal_misc_Unsafe_methods, a JNINativeMethod array in libjvm's symbol
// table). Every row read is checked to point into libjvm.
Error find_original(ParkFunction* out) {
  const std::optional<elf::LoadedObject> jvm = hotspot::libjvm();
  if (!jvm) return Error("libjvm.so not found");
  std::string why;
  const std::optional<uintptr_t> table = elf::find_data_symbol(*jvm, "_ZL32jdk_internal_misc_Unsafe_methods", &why);
  if (!table) return Error("Unsafe's native table is not in libjvm's symbol table (" + why + ")");
  // Unsafe has about 100 natives; the table has no terminator, so the scan stops at the first row
  // that is not a libjvm name and signature.
  constexpr size_t kMaxRows = 400;
  const auto* rows = reinterpret_cast<const JNINativeMethod*>(*table);
  for (size_t i = 0; i < kMaxRows && jvm->contains(reinterpret_cast<uintptr_t>(&rows[i]), sizeof(JNINativeMethod));
       i++) {
    const JNINativeMethod& row = rows[i];
    if (!jvm->contains(reinterpret_cast<uintptr_t>(row.name), 1) ||
        !jvm->contains(reinterpret_cast<uintptr_t>(row.signature), 1)) {
      break;
    }
    if (libjvm_string_is(*jvm, row.name, "park") && libjvm_string_is(*jvm, row.signature, "(ZJ)V")) {
      if (!jvm->contains(reinterpret_cast<uintptr_t>(row.fnPtr), 1)) break;
      *out = reinterpret_cast<ParkFunction>(row.fnPtr);
      return Error::ok();
    }
  }
  return Error("no park(ZJ)V row in Unsafe's native table");
}

jclass find_unsafe(JNIEnv* jni) {
  jclass unsafe = jni->FindClass(kUnsafe);
  if (unsafe == nullptr) jni->ExceptionClear();
  return unsafe;
}

}  // namespace

Error install_park_hook(jvmtiEnv* jvmti, JNIEnv* jni) {
  std::lock_guard<std::mutex> lock(g_install_mutex);
  if (g_installed) return Error::ok();
  if (jni == nullptr) return Error("park: no JNI environment on this thread");
  if (g_original.load() == nullptr) {
    ParkFunction original = nullptr;
    if (Error e = find_original(&original)) return Error("park: " + e.message());
    g_original.store(original, std::memory_order_release);
  }
  if (Error e = learn_park_blocker(jni)) return Error("park: " + e.message());
  jclass unsafe = find_unsafe(jni);
  if (unsafe == nullptr) return Error("park: no jdk.internal.misc.Unsafe");
  g_jvmti = jvmti;
  Error e = bind_park(jni, unsafe, reinterpret_cast<void*>(&park_wrapper));
  jni->DeleteLocalRef(unsafe);
  if (e) return Error("park: " + e.message());
  g_installed = true;
  return Error::ok();
}

void remove_park_hook(JNIEnv* jni) {
  std::lock_guard<std::mutex> lock(g_install_mutex);
  if (!g_installed || jni == nullptr) return;
  jclass unsafe = find_unsafe(jni);
  if (unsafe == nullptr) return;
  // Threads parked in the wrapper now return through it: it stays in the library, which is never
  // unloaded.
  if (!bind_park(jni, unsafe, reinterpret_cast<void*>(g_original.load()))) g_installed = false;
  jni->DeleteLocalRef(unsafe);
}

}  // namespace jvmkit::prof
