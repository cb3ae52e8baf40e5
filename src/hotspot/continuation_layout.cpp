#include "hotspot/continuation_layout.hpp"

#include <atomic>
#include <mutex>
#include <optional>

#include "hotspot/java_thread.hpp"
#include "hotspot/vm_flags.hpp"
#include "hotspot/vm_structs.hpp"

namespace jvmkit::hotspot {

namespace {

// ContinuationEntry's first words, where _cont is looked for (HotSpot keeps it among the first).
constexpr intptr_t kEntrySearched = 64;

std::mutex g_mutex;
ContinuationLayout g_learnt;  // under g_mutex until published
bool g_have_learnt = false;
constinit std::atomic<bool> g_pending{false};  // learnt, not yet confirmed: VirtualThreadStart checks
constinit std::atomic<const ContinuationLayout*> g_known{nullptr};

void clear(JNIEnv* env) {
  if (env->ExceptionCheck()) env->ExceptionClear();
}

// A local JNI reference's object: HotSpot's local handles are untagged slots that hold it.
uintptr_t raw_object(jobject local) {
  uintptr_t value = 0;
  if (local != nullptr) std::memcpy(&value, local, sizeof(value));
  return value;
}

template <typename T>
std::optional<T> load_static(const char* type, const char* field) {
  const std::optional<uintptr_t> address = vm_static_field_address(type, field);
  if (!address) return std::nullopt;
  T value;
  std::memcpy(&value, reinterpret_cast<const void*>(*address), sizeof(value));
  return value;
}

// The offsets of FIELDS (instance fields of the class named CLASS_NAME) from
// jdk.internal.misc.Unsafe.objectFieldOffset(Class, String); JNI calls ignore module boundaries.
template <size_t N>
bool field_offsets(JNIEnv* env, const char* class_name, const char* const (&fields)[N], intptr_t* out) {
  jclass unsafe_class = env->FindClass("jdk/internal/misc/Unsafe");
  jclass holder = env->FindClass(class_name);
  clear(env);
  bool ok = unsafe_class != nullptr && holder != nullptr;
  jmethodID get = ok ? env->GetStaticMethodID(unsafe_class, "getUnsafe", "()Ljdk/internal/misc/Unsafe;") : nullptr;
  jmethodID offset_of =
      ok ? env->GetMethodID(unsafe_class, "objectFieldOffset", "(Ljava/lang/Class;Ljava/lang/String;)J") : nullptr;
  clear(env);
  jobject unsafe = get != nullptr && offset_of != nullptr ? env->CallStaticObjectMethod(unsafe_class, get) : nullptr;
  clear(env);
  ok = unsafe != nullptr;
  for (size_t i = 0; ok && i < N; i++) {
    jstring name = env->NewStringUTF(fields[i]);
    out[i] = name != nullptr ? static_cast<intptr_t>(env->CallLongMethod(unsafe, offset_of, holder, name)) : -1;
    if (env->ExceptionCheck() || out[i] <= 0) ok = false;
    clear(env);
    if (name != nullptr) env->DeleteLocalRef(name);
  }
  for (jobject ref : {static_cast<jobject>(unsafe_class), static_cast<jobject>(holder), unsafe}) {
    if (ref != nullptr) env->DeleteLocalRef(ref);
  }
  return ok;
}

// InstanceStackChunkKlass::_offset_of_stack: StackChunk's instance size, its Klass's layout
// helper (bytes, with a slow-path bit), read through the class mirror's Klass pointer.
std::optional<intptr_t> stack_offset(JNIEnv* env) {
  const std::optional<int> klass_in_mirror = load_static<int>("java_lang_Class", "_klass_offset");
  const std::optional<intptr_t> helper = vm_struct_offset("Klass", "_layout_helper");
  jclass chunk_class = env->FindClass("jdk/internal/vm/StackChunk");
  clear(env);
  if (!klass_in_mirror || !helper || chunk_class == nullptr) return std::nullopt;
  const uintptr_t mirror = raw_object(chunk_class);
  uintptr_t klass = 0;
  if (mirror != 0) std::memcpy(&klass, reinterpret_cast<const void*>(mirror + *klass_in_mirror), sizeof(klass));
  env->DeleteLocalRef(chunk_class);
  if (klass == 0) return std::nullopt;
  int32_t layout_helper;
  std::memcpy(&layout_helper, reinterpret_cast<const void*>(klass + *helper), sizeof(layout_helper));
  const intptr_t bytes = layout_helper & ~7;
  if (bytes < 16 || bytes > 512) return std::nullopt;
  return bytes;
}

bool heap_range(ContinuationLayout* layout) {
  const std::optional<uintptr_t> heap = load_static<uintptr_t>("Universe", "_collectedHeap");
  const std::optional<intptr_t> reserved = vm_struct_offset("CollectedHeap", "_reserved");
  const std::optional<intptr_t> start = vm_struct_offset("MemRegion", "_start");
  const std::optional<intptr_t> words = vm_struct_offset("MemRegion", "_word_size");
  if (!heap || *heap == 0 || !reserved || !start || !words) return false;
  uintptr_t lo, size;
  std::memcpy(&lo, reinterpret_cast<const void*>(*heap + *reserved + *start), sizeof(lo));
  std::memcpy(&size, reinterpret_cast<const void*>(*heap + *reserved + *words), sizeof(size));
  if (lo == 0 || size == 0) return false;
  layout->heap_lo = lo;
  layout->heap_hi = lo + 8 * size;
  return true;
}

bool compressed_oops(ContinuationLayout* layout) {
  layout->narrow = bool_flag("UseCompressedOops").value_or(false);
  if (!layout->narrow) return true;
  const std::optional<uintptr_t> base = load_static<uintptr_t>("CompressedOops", "_base");
  const std::optional<int> shift = load_static<int>("CompressedOops", "_shift");
  if (!base || !shift || *shift < 0 || *shift > 8) return false;
  layout->narrow_base = *base;
  layout->narrow_shift = *shift;
  return true;
}

}  // namespace

bool learn_continuation_layout(JNIEnv* env) {
  const JavaThreadLayout* threads = known_java_thread_layout();
  const std::optional<intptr_t> entry = vm_struct_offset("JavaThread", "_cont_entry");
  const std::optional<intptr_t> state = vm_struct_offset("JavaThread", "_thread_state");
  if (threads == nullptr || !entry || !state) return false;  // no continuations in this JVM
  const bool plain_addresses = bool_flag("UseSerialGC").value_or(false) || bool_flag("UseParallelGC").value_or(false) ||
                               bool_flag("UseG1GC").value_or(false);
  if (!plain_addresses) return false;  // the collector moves objects outside safepoints
  ContinuationLayout layout;
  layout.env_offset = threads->env_offset;
  layout.cont_entry = *entry;
  layout.thread_state = *state;
  const char* const tail[] = {"tail"};
  const char* const chunk[] = {"parent", "size", "sp", "bottom"};
  intptr_t chunk_fields[4];
  if (!field_offsets(env, "jdk/internal/vm/Continuation", tail, &layout.tail) ||
      !field_offsets(env, "jdk/internal/vm/StackChunk", chunk, chunk_fields)) {
    return false;  // Continuation.tail or StackChunk's fields not found
  }
  layout.parent = chunk_fields[0];
  layout.size = chunk_fields[1];
  layout.sp = chunk_fields[2];
  layout.bottom = chunk_fields[3];
  const std::optional<intptr_t> offset = stack_offset(env);
  if (!offset) return false;  // StackChunk's instance size not found
  layout.stack_offset = *offset;
  if (!heap_range(&layout) || !compressed_oops(&layout)) return false;  // the heap's range or oop encoding not found
  std::lock_guard lock(g_mutex);
  g_learnt = layout;
  g_have_learnt = true;
  g_pending.store(true, std::memory_order_release);
  return true;
}

void confirm_continuation_layout(JNIEnv* env, jobject virtual_thread) {
  if (!g_pending.load(std::memory_order_acquire)) return;
  std::lock_guard lock(g_mutex);
  if (!g_have_learnt || g_known.load(std::memory_order_relaxed) != nullptr) return;
  jclass virtual_class = env->GetObjectClass(virtual_thread);
  jfieldID cont_field =
      virtual_class != nullptr ? env->GetFieldID(virtual_class, "cont", "Ljdk/internal/vm/Continuation;") : nullptr;
  clear(env);
  if (virtual_class != nullptr) env->DeleteLocalRef(virtual_class);
  jobject cont = cont_field != nullptr ? env->GetObjectField(virtual_thread, cont_field) : nullptr;
  ContinuationLayout& layout = g_learnt;
  const char* thread = reinterpret_cast<const char*>(env) - layout.env_offset;
  uintptr_t entry = 0;
  std::memcpy(&entry, thread + layout.cont_entry, sizeof(entry));
  const uintptr_t expected = raw_object(cont);
  if (cont != nullptr) env->DeleteLocalRef(cont);
  if (entry == 0 || expected < layout.heap_lo || expected >= layout.heap_hi) return;
  // The one word of the entry's first ones that holds the continuation. A collection between the
  // reads may move the object: then none matches, and the next virtual thread's start tries again.
  intptr_t found = -1;
  for (intptr_t offset = 0; offset < kEntrySearched; offset += 8) {
    uintptr_t word;
    std::memcpy(&word, reinterpret_cast<const void*>(entry + offset), sizeof(word));
    if (word != expected) continue;
    if (found >= 0) return;  // ambiguous
    found = offset;
  }
  if (found < 0) return;
  layout.entry_cont = found;
  g_known.store(new ContinuationLayout(layout), std::memory_order_release);  // kept for the process
  g_pending.store(false, std::memory_order_relaxed);
}

const ContinuationLayout* known_continuation_layout() noexcept { return g_known.load(std::memory_order_acquire); }

}  // namespace jvmkit::hotspot
