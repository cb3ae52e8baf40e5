#include "stack_walk/virtual_threads.hpp"

#include <cstring>
#include <iterator>

#include "hotspot/continuation_layout.hpp"
#include "stack_walk/signal/capture.hpp"

namespace jvmkit::walk {

namespace {

std::atomic<bool> g_carrier_frames{false};

void clear_exception(JNIEnv* jni) {
  if (jni->ExceptionCheck()) jni->ExceptionClear();
}

// The jmethodID of jdk.internal.vm.Continuation's method NAME, or nullptr (JDK 17: no such class).
// Found by name: the signatures are internal and have changed between releases.
jmethodID find_continuation_method(JNIEnv* jni, jvmtiEnv* jvmti, const char* wanted) {
  jclass continuation = jni->FindClass("jdk/internal/vm/Continuation");
  if (continuation == nullptr) {
    clear_exception(jni);
    return nullptr;
  }
  jmethodID found = nullptr;
  jint count = 0;
  jmethodID* methods = nullptr;
  if (jvmti->GetClassMethods(continuation, &count, &methods) == JVMTI_ERROR_NONE) {
    for (jint i = 0; i < count && found == nullptr; i++) {
      char* name = nullptr;
      if (jvmti->GetMethodName(methods[i], &name, nullptr, nullptr) != JVMTI_ERROR_NONE) continue;
      if (std::strcmp(name, wanted) == 0) found = methods[i];
      jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
    }
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(methods));
  }
  // Continuation is a boot class, never unloaded: its jmethodIDs stay valid.
  jni->DeleteLocalRef(continuation);
  return found;
}

// The class named NAME (dotted) from the boot loader, loaded but not initialised (JNI's FindClass
// initialises), or nullptr.
jclass load_without_initializing(JNIEnv* jni, const char* name) {
  jclass class_class = jni->FindClass("java/lang/Class");
  jmethodID for_name = class_class != nullptr
                           ? jni->GetStaticMethodID(class_class, "forName",
                                                    "(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;")
                           : nullptr;
  jstring java_name = for_name != nullptr ? jni->NewStringUTF(name) : nullptr;
  jobject found = java_name != nullptr
                      ? jni->CallStaticObjectMethod(class_class, for_name, java_name, JNI_FALSE, nullptr)
                      : nullptr;
  clear_exception(jni);  // ClassNotFoundException on JDK 17
  if (java_name != nullptr) jni->DeleteLocalRef(java_name);
  if (class_class != nullptr) jni->DeleteLocalRef(class_class);
  return static_cast<jclass>(found);
}

// A static int constant of KLASS (VirtualThread's states), or FALLBACK when it has none.
jint static_int(JNIEnv* jni, jclass klass, const char* name, jint fallback) {
  jfieldID field = jni->GetStaticFieldID(klass, name, "I");
  if (field == nullptr) {
    clear_exception(jni);
    return fallback;
  }
  return jni->GetStaticIntField(klass, field);
}

// HotSpot's extension function that names the virtual thread a carrier runs, or nullptr.
void* find_get_virtual_thread(jvmtiEnv* jvmti) {
  jint count = 0;
  jvmtiExtensionFunctionInfo* functions = nullptr;
  if (jvmti->GetExtensionFunctions(&count, &functions) != JVMTI_ERROR_NONE) return nullptr;
  void* found = nullptr;
  for (jint i = 0; i < count; i++) {
    jvmtiExtensionFunctionInfo& f = functions[i];
    if (found == nullptr && std::strcmp(f.id, "com.sun.hotspot.functions.GetVirtualThread") == 0) {
      found = reinterpret_cast<void*>(f.func);
    }
    for (jint p = 0; p < f.param_count; p++) jvmti->Deallocate(reinterpret_cast<unsigned char*>(f.params[p].name));
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(f.id));
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(f.short_description));
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(f.params));
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(f.errors));
  }
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(functions));
  return found;
}

}  // namespace

void set_carrier_frames(bool include) noexcept { g_carrier_frames.store(include, std::memory_order_relaxed); }
bool carrier_frames() noexcept { return g_carrier_frames.load(std::memory_order_relaxed); }

void VirtualThreads::prepare(JNIEnv* jni, jvmtiEnv* jvmti) {
  if (jvmti_ != nullptr) return;
  jvmti_ = jvmti;
  enter_special_ = find_continuation_method(jni, jvmti, "enterSpecial");
  continuation_enter_ = find_continuation_method(jni, jvmti, "enter");
  // The capture walks a mounted virtual thread's frozen frames where HotSpot's layout is known.
  if (enter_special_ != nullptr && continuation_enter_ != nullptr && hotspot::learn_continuation_layout(jni)) {
    capture_state().continuation_enter.store(continuation_enter_, std::memory_order_release);
    capture_state().enter_special.store(enter_special_, std::memory_order_release);
  }
  get_virtual_thread_ = reinterpret_cast<GetVirtualThreadFn>(find_get_virtual_thread(jvmti));
  jclass thread_class = jni->FindClass("java/lang/Thread");
  tid_ = thread_class != nullptr ? jni->GetFieldID(thread_class, "tid", "J") : nullptr;
  clear_exception(jni);
  if (thread_class != nullptr) jni->DeleteLocalRef(thread_class);
  // Its states are learnt when a virtual thread is first met (waits_unmounted): the class is
  // initialised by then, and JNI's field look-ups would initialise it.
  jclass virtual_class = load_without_initializing(jni, "java.lang.VirtualThread");
  if (virtual_class != nullptr) {
    virtual_class_ = static_cast<jclass>(jni->NewGlobalRef(virtual_class));
    jni->DeleteLocalRef(virtual_class);
  }
}

void VirtualThreads::learn_states(JNIEnv* jni) {
  states_learnt_ = true;
  jclass virtual_class = virtual_class_;
  state_ = jni->GetFieldID(virtual_class, "state", "I");
  clear_exception(jni);
  suspended_bit_ = static_int(jni, virtual_class, "SUSPENDED", 0);
  const char* const waiting[] = {"PARKED", "TIMED_PARKED", "BLOCKED", "WAIT", "TIMED_WAIT"};
  for (size_t i = 0; i < std::size(waiting); i++) waiting_states_[i] = static_int(jni, virtual_class, waiting[i], -1);
  const char* const going[] = {"PARKING", "TIMED_PARKING", "BLOCKING", "WAITING", "TIMED_WAITING"};
  for (size_t i = 0; i < std::size(going); i++) going_states_[i] = static_int(jni, virtual_class, going[i], -1);
}

bool VirtualThreads::waits_unmounted(JNIEnv* jni, jobject virtual_thread, bool going) {
  if (!states_learnt_ && virtual_class_ != nullptr && virtual_thread != nullptr) learn_states(jni);
  if (state_ == nullptr || virtual_thread == nullptr) return false;
  const auto in = [](jint state, const jint(&states)[5]) {
    for (jint s : states) {
      if (s >= 0 && state == s) return true;
    }
    return false;
  };
  const jint state = jni->GetIntField(virtual_thread, state_) & ~suspended_bit_;
  return in(state, waiting_states_) || (going && in(state, going_states_));
}

void VirtualThreads::reset(JNIEnv* jni) {
  table_.clear(jni);
  if (virtual_class_ != nullptr) jni->DeleteGlobalRef(virtual_class_);
  virtual_class_ = nullptr;
  states_learnt_ = false;
  state_ = nullptr;
  jvmti_ = nullptr;
  enter_special_ = nullptr;
  get_virtual_thread_ = nullptr;
  tid_ = nullptr;
}

bool VirtualThreads::is_virtual(JNIEnv* jni, jobject thread) const {
  return virtual_class_ != nullptr && thread != nullptr && jni->IsInstanceOf(thread, virtual_class_);
}

jlong VirtualThreads::thread_id(JNIEnv* jni, jobject thread) {
  return tid_ != nullptr && thread != nullptr ? jni->GetLongField(thread, tid_) : 0;
}

VirtualSplit VirtualThreads::split(JNIEnv* jni, jobject carrier, int64_t java_thread_id,
                                   const hotspot::AsgctFrame* frames, jint count, bool truncated, bool own_stack) {
  VirtualSplit split;
  split.frames = count;
  if (java_thread_id == 0 || enter_special_ == nullptr || java_thread_id == thread_id(jni, carrier)) return split;
  if (own_stack) {
    split.id = java_thread_id;
    split.own = count;
    split.thread = find(jni, carrier, java_thread_id);
    return split;
  }
  // A virtual thread ran. Its frames are those above the continuation's entry; where there is none
  // in the walk, the sample fell into the mount or unmount, on the carrier's frames (unless the
  // walk stopped at the depth limit above the entry).
  jint entry = 0;
  while (entry < count && frames[entry].method_id != enter_special_) entry++;
  if (entry == count && !truncated) return split;
  split.id = java_thread_id;
  if (entry == 0) {
    split.in_entry = true;
    return split;
  }
  split.own = entry;
  split.frames = entry < count && carrier_frames() ? count : entry;
  split.frozen_missing = entry < count && frames[entry - 1].method_id != continuation_enter_;
  split.thread = find(jni, carrier, java_thread_id);
  return split;
}

jint VirtualThreads::frozen_frames(JNIEnv* jni, jobject virtual_thread, jmethodID bottom, jvmtiFrameInfo* buffer,
                                   jint room, bool* cut) {
  *cut = false;
  if (!waits_unmounted(jni, virtual_thread, true)) return 0;
  jint n = 0;
  if (jvmti_->GetStackTrace(virtual_thread, 0, room + 1, buffer, &n) != JVMTI_ERROR_NONE) return 0;
  // The walk's last frame, where it is now: the first one of its method from the top. (In a
  // recursion any of them has the same callers below, but for the depth.)
  jint at = 0;
  while (at < n && buffer[at].method != bottom) at++;
  if (at >= n) return 0;  // it returned below the walk's frames since: nothing to complete with
  // Frames of the continuation's entry are the carrier's (JVMTI may show enterSpecial last).
  jint end = n;
  for (jint i = at + 1; i < n; i++) {
    if (buffer[i].method == enter_special_) {
      end = i;
      break;
    }
  }
  jint moved = end - (at + 1);
  if (end == n && n == room + 1) *cut = true;  // GetStackTrace filled the buffer: more lie below
  if (moved > room) {
    moved = room;
    *cut = true;
  }
  std::memmove(buffer, buffer + at + 1, sizeof(jvmtiFrameInfo) * static_cast<size_t>(moved));
  return moved;
}

jobject VirtualThreads::virtual_of(JNIEnv* jni, jobject carrier, int64_t java_thread_id) {
  if (java_thread_id == 0 || enter_special_ == nullptr || java_thread_id == thread_id(jni, carrier)) return nullptr;
  return find(jni, carrier, java_thread_id);
}

jobject VirtualThreads::find(JNIEnv* jni, jobject carrier, int64_t id) {
  if (jobject known = table_.find(jni, id)) return known;
  if (get_virtual_thread_ == nullptr || carrier == nullptr) return nullptr;
  jthread mounted = nullptr;
  if (get_virtual_thread_(jvmti_, carrier, &mounted) != JVMTI_ERROR_NONE || mounted == nullptr) return nullptr;
  if (thread_id(jni, mounted) != id) {
    jni->DeleteLocalRef(mounted);  // another virtual thread runs there now
    return nullptr;
  }
  table_.add(jni, id, mounted);
  return mounted;
}

}  // namespace jvmkit::walk
