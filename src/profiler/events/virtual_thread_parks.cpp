#include "profiler/events/virtual_thread_parks.hpp"

#include "profiler/events/park_blocker.hpp"

#include <jvmkit/stack_walk.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/clock.hpp"
#include "base/thread_id.hpp"
#include "hotspot/jvmti_capabilities.hpp"
#include "profiler/context/context_agent.hpp"
#include "profiler/events/event_samples.hpp"
#include "profiler/events/lock_sampler.hpp"
#include "profiler/recording/recording.hpp"

namespace jvmkit::prof {
namespace {

struct Frame {
  jvmtiFrameType type;
  jmethodID method;
  jlocation location;
};

// Who has done their part of a park; the one that completes both finishes it.
constexpr int kTraced = 1;   // the unmount's trace came (frames kept) or failed, or was refused
constexpr int kDecided = 2;  // the wait ended (or the park was left at a stop)

// One park of a virtual thread, from its unmount until it is in the profile or left out; or one
// of its monitor waits (MONITOR), from MonitorContendedEnter to MonitorContendedEntered.
struct Park {
  std::atomic<int> state{0};
  bool monitor = false;
  int64_t start_ns = 0;
  pid_t tid = 0;          // the carrier's, at the unmount
  SampleContext context;  // the thread's request context at the unmount
  // Written by the unmount's trace callbacks (the library's delivery thread) before kTraced.
  std::vector<Frame> frames;
  bool biased = false;
  bool truncated = false;
  bool failed = false;  // no trace: the library's failure callback
  // Taken after the unmount (JvmkitCurrentTraceServedLater): its stack, if the wait had not ended
  // when the trace came (the stack was taken before: the thread was still in this wait).
  bool late = false;
  bool refused = false;  // the library refused the request (pool full, not enabled)
  bool sleep = false;    // a frame of VirtualThread.sleepNanos: Thread.sleep, not a lock wait
  // Written at the mount before kDecided.
  bool wanted = false;  // a wait of at least the threshold: a sample
  int64_t waited_ns = 0;
  std::string lock_class;
};

// The parks under way, by the id kept in the virtual thread's JVMTI thread-local storage. Ids are
// never reused: an id left in a thread's storage at a stop finds nothing later.
std::mutex g_mutex;
std::unordered_map<uint64_t, Park*> g_parks;  // guarded by g_mutex
uint64_t g_next_id = 1;                       // guarded by g_mutex

// Learnt at start (the JVM's classes never change these).
std::atomic<bool> g_enabled{false};
bool g_events_found = false;  // the indexes below are the JVM's (only the control thread)
jint g_unmount_index = 0;
jint g_mount_index = 0;
jfieldID g_state = nullptr;  // java.lang.VirtualThread.state
jint g_parking = -1;
jint g_timed_parking = -1;
jint g_suspended_bit = 0;
jmethodID g_sleep_nanos = nullptr;        // VirtualThread.sleepNanos(long), when the JDK has it
jclass g_virtual_thread_class = nullptr;  // java.lang.VirtualThread, a global reference

uintptr_t storage_of_park(uint64_t id) { return static_cast<uintptr_t>(id) << 1; }  // even: lock_sampler.hpp

jint thread_state(JNIEnv* jni, jthread vthread) { return jni->GetIntField(vthread, g_state) & ~g_suspended_bit; }
bool parking(jint state) { return state == g_parking || (g_timed_parking >= 0 && state == g_timed_parking); }

// The class name of VTHREAD's park blocker, "[no blocker]" when it has none (as lock_sampler.cpp).
std::string blocker_name(jvmtiEnv* jvmti, JNIEnv* jni, jthread vthread) {
  jclass klass = park_blocker_class(jni, vthread);
  if (klass == nullptr) return "[no blocker]";
  std::string name = java_class_name(jvmti, klass);
  jni->DeleteLocalRef(klass);
  return name;
}

// The sample of a finished park: into the profile of the run now sampling, with THREAD (the trace's
// thread). Only inside a trace callback of the library (on its delivery thread), as every sample.
void emit(const Park& park, jthread thread) {
  Recording* recording = current_recording();
  const size_t slot = recording->slot_of(EngineKind::kLock);
  if (park.failed || park.late) {
    if (park.late) count_late_trace(EngineKind::kLock);
    recording->trace_failed(slot, park.tid);
    return;
  }
  recording->begin_trace(slot, park.biased ? JNI_TRUE : JNI_FALSE);
  for (const Frame& f : park.frames) {
    if (!recording->add_frame(f.type, f.method, f.location)) break;
  }
  recording->end_event_trace(thread, park.tid, park.truncated, park.waited_ns, park.lock_class, 0, true, park.context);
}

// --- A second request, made at the mount when the unmount's frames came first: its callbacks put
// the kept frames into the profile. Its own frames (the mounted thread's, perhaps thawed only in
// part) are not used. ---
void JNICALL replay_begin(jthread, jboolean, void*) {}
jint JNICALL replay_frame(jvmtiFrameType, jmethodID, jlocation, void*) { return JVMKIT_FRAME_STOP; }
void JNICALL replay_end(jthread thread, void* user_data) {
  std::unique_ptr<Park> park(static_cast<Park*>(user_data));
  emit(*park, thread);
}
void JNICALL replay_failure(jthread thread, void* user_data) { replay_end(thread, user_data); }
const jvmtiStackTraceCallbacks kReplay{&replay_begin, &replay_end, &replay_frame, &replay_failure};

// --- The unmount's request: its frames are kept until the wait is known. ---
void traced(Park* park, jthread thread) {
  if ((park->state.fetch_or(kTraced, std::memory_order_acq_rel) & kDecided) == 0) return;  // the mount finishes it
  std::unique_ptr<Park> owned(park);
  if (!park->wanted || park->sleep) return;
  count_decided_request(EngineKind::kLock, true);
  emit(*park, thread);
}
void JNICALL unmount_begin(jthread, jboolean biased, void* user_data) {
  auto* park = static_cast<Park*>(user_data);
  park->biased = biased == JNI_TRUE;
  park->late = JvmkitCurrentTraceServedLater() == JNI_TRUE;
}
jint JNICALL unmount_frame(jvmtiFrameType type, jmethodID method, jlocation location, void* user_data) {
  auto* park = static_cast<Park*>(user_data);
  if (method == g_sleep_nanos && method != nullptr) park->sleep = true;
  park->frames.push_back({type, method, location});
  return JVMKIT_FRAME_CONTINUE;
}
void JNICALL unmount_end(jthread thread, void* user_data) {
  auto* park = static_cast<Park*>(user_data);
  park->truncated = JvmkitCurrentTraceTruncated() == JNI_TRUE;
  // Taken later, the stack is still the wait's if the wait has not ended by now: the mount (or
  // MonitorContendedEntered) that ends it decides it.
  const bool still_waiting = (park->state.load(std::memory_order_acquire) & kDecided) == 0;
  if (park->late && still_waiting) park->late = false;
  if (park->late) park->frames.clear();
  traced(park, thread);
}
void JNICALL unmount_failure(jthread thread, void* user_data) {
  auto* park = static_cast<Park*>(user_data);
  park->failed = true;
  traced(park, thread);
}
const jvmtiStackTraceCallbacks kUnmount{&unmount_begin, &unmount_end, &unmount_frame, &unmount_failure};

// PARK got no trace request: on the thread that unmounts.
void traced_here(Park* park) {
  if (park->state.fetch_or(kTraced, std::memory_order_acq_rel) & kDecided) delete park;  // left at a stop
}

// The wait of PARK is known (its fields are set): finishes it when its trace came first.
void decided(jvmtiEnv* jvmti, Park* park) {
  if ((park->state.fetch_or(kDecided, std::memory_order_acq_rel) & kTraced) == 0) return;  // the trace finishes it
  std::unique_ptr<Park> owned(park);
  if (!park->wanted || park->sleep) return;
  if (park->refused) {
    count_decided_request(EngineKind::kLock, false);
    return;
  }
  if (request_trace_ahead(jvmti, EngineKind::kLock, kReplay, park) != JVMTI_ERROR_NONE) {
    count_decided_request(EngineKind::kLock, false);
    return;
  }
  owned.release();  // the replay's callbacks own it now
  count_decided_request(EngineKind::kLock, true);
}

// Every park under way is left out (at start and stop): nobody will decide them any more.
void abandon_parks() {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (auto& [id, park] : g_parks) {
    if (park->state.fetch_or(kDecided, std::memory_order_acq_rel) & kTraced) delete park;
  }
  g_parks.clear();
}

// Starts PARK's wait on the current (virtual) thread: its record, its id in the thread's storage,
// and the request for its stack now.
void begin_wait(jvmtiEnv* jvmti, Park* park) {
  park->tid = jvmkit::current_tid();
  park->context = current_sample_context(park->tid);
  park->start_ns = jvmkit::monotonic_ns();
  uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    id = g_next_id++;
    g_parks.emplace(id, park);
  }
  // The current thread's storage is the mounted virtual thread's (HotSpot rebinds it at mount). No
  // mount of this thread comes before this callback returns; a stop may (abandon_parks).
  if (jvmti->SetThreadLocalStorage(nullptr, reinterpret_cast<void*>(storage_of_park(id))) != JVMTI_ERROR_NONE) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_parks.erase(id) != 0) {
      delete park;
    } else {
      traced_here(park);  // a stop took it meanwhile
    }
    return;
  }
  if (request_trace_ahead(jvmti, EngineKind::kLock, kUnmount, park) != JVMTI_ERROR_NONE) {
    park->refused = true;
    traced_here(park);
  }
}

// What kind of wait record the current thread's storage names (*ID: its id), without taking it.
enum class WaitKind { kNone, kPark, kMonitor };
WaitKind current_wait(jvmtiEnv* jvmti, uint64_t* id) {
  void* storage = nullptr;
  if (jvmti->GetThreadLocalStorage(nullptr, &storage) != JVMTI_ERROR_NONE) return WaitKind::kNone;
  const auto value = reinterpret_cast<uintptr_t>(storage);
  if (value == 0 || (value & 1) != 0) return WaitKind::kNone;  // odd: a platform thread's enter time
  *id = value >> 1;
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_parks.find(*id);
  if (it == g_parks.end()) return WaitKind::kNone;
  return it->second->monitor ? WaitKind::kMonitor : WaitKind::kPark;
}

// Takes the wait record ID from the map and the thread's storage: nullptr when a stop took it.
Park* take_wait(jvmtiEnv* jvmti, uint64_t id) {
  jvmti->SetThreadLocalStorage(nullptr, nullptr);
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_parks.find(id);
  if (it == g_parks.end()) return nullptr;
  Park* park = it->second;
  g_parks.erase(it);
  return park;
}

// --- The extension events (a carrier thread, with the virtual thread mounted) ---
void JNICALL on_unmount(jvmtiEnv* jvmti, JNIEnv* jni, jthread vthread) {
  if (!g_enabled.load(std::memory_order_acquire) || !lock_sampling_armed()) return;
  if (!parking(thread_state(jni, vthread))) return;
  auto* park = new Park;
  // The blocker now: inside the park it is set (LockSupport clears it only once park returns).
  park->lock_class = blocker_name(jvmti, jni, vthread);
  begin_wait(jvmti, park);
}

void JNICALL on_mount(jvmtiEnv* jvmti, JNIEnv* jni, jthread vthread) {
  uint64_t id = 0;
  // A monitor wait ends at its MonitorContendedEntered, which follows this mount.
  if (current_wait(jvmti, &id) != WaitKind::kPark) return;
  Park* park = take_wait(jvmti, id);
  if (park == nullptr) return;  // left at a stop
  const int64_t waited = jvmkit::monotonic_ns() - park->start_ns;
  // Still PARKING: the yield failed (pinned); the carrier parks next, in Unsafe.park.
  if (lock_sampling_armed() && !parking(thread_state(jni, vthread))) {
    if (waited < lock_threshold_ns()) {
      count_below_threshold(EngineKind::kLock);
    } else {
      park->wanted = true;
      park->waited_ns = waited;
    }
  }
  decided(jvmti, park);
}

// The extension event named NAME ("com.sun.hotspot.events.VirtualThreadMount"), its index in *INDEX.
bool find_extension_event(jvmtiEnv* jvmti, const char* name, jint* index) {
  jint count = 0;
  jvmtiExtensionEventInfo* events = nullptr;
  if (jvmti->GetExtensionEvents(&count, &events) != JVMTI_ERROR_NONE) return false;
  bool found = false;
  for (jint i = 0; i < count; i++) {
    if (!found && std::strcmp(events[i].id, name) == 0) {
      *index = events[i].extension_event_index;
      found = true;
    }
    for (jint p = 0; p < events[i].param_count; p++) {
      jvmti->Deallocate(reinterpret_cast<unsigned char*>(events[i].params[p].name));
    }
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(events[i].params));
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(events[i].id));
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(events[i].short_description));
  }
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(events));
  return found;
}

// A static int constant of KLASS (VirtualThread's states), or FALLBACK when it has none.
jint static_int(JNIEnv* jni, jclass klass, const char* name, jint fallback) {
  jfieldID field = jni->GetStaticFieldID(klass, name, "I");
  if (field == nullptr) {
    jni->ExceptionClear();
    return fallback;
  }
  return jni->GetStaticIntField(klass, field);
}

// What the callbacks read of VirtualThread and LockSupport. *PRESENT: the JVM has virtual threads.
Error learn_classes(JNIEnv* jni, bool* present) {
  *present = false;
  jclass vthread = jni->FindClass("java/lang/VirtualThread");
  if (vthread == nullptr) {
    jni->ExceptionClear();
    return Error::ok();  // JDK 17: no virtual threads
  }
  *present = true;
  if (g_virtual_thread_class == nullptr) g_virtual_thread_class = static_cast<jclass>(jni->NewGlobalRef(vthread));
  g_state = jni->GetFieldID(vthread, "state", "I");
  if (g_state == nullptr) jni->ExceptionClear();
  g_parking = static_int(jni, vthread, "PARKING", -1);
  g_timed_parking = static_int(jni, vthread, "TIMED_PARKING", -1);
  g_suspended_bit = static_int(jni, vthread, "SUSPENDED", 0);
  g_sleep_nanos = jni->GetMethodID(vthread, "sleepNanos", "(J)V");
  if (g_sleep_nanos == nullptr) jni->ExceptionClear();
  jni->DeleteLocalRef(vthread);
  if (g_state == nullptr || g_parking < 0) return Error("java.lang.VirtualThread has no state field or PARKING state");
  if (Error e = learn_park_blocker(jni)) return e;
  return Error::ok();
}

}  // namespace

bool virtual_monitor_enter(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread) {
  if (!g_enabled.load(std::memory_order_acquire) || g_virtual_thread_class == nullptr || thread == nullptr ||
      !jni->IsInstanceOf(thread, g_virtual_thread_class)) {
    return false;
  }
  auto* park = new Park;
  park->monitor = true;
  begin_wait(jvmti, park);
  return true;
}

bool virtual_monitor_entered(jvmtiEnv* jvmti, JNIEnv* jni, jobject object) {
  uint64_t id = 0;
  if (current_wait(jvmti, &id) != WaitKind::kMonitor) return false;
  Park* park = take_wait(jvmti, id);
  if (park == nullptr) return true;  // left at a stop
  const int64_t waited = jvmkit::monotonic_ns() - park->start_ns;
  if (lock_sampling_armed()) {
    if (waited < lock_threshold_ns()) {
      count_below_threshold(EngineKind::kLock);
    } else {
      park->wanted = true;
      park->waited_ns = waited;
      jclass klass = jni->GetObjectClass(object);
      park->lock_class = java_class_name(jvmti, klass);
      jni->DeleteLocalRef(klass);
    }
  }
  decided(jvmti, park);
  return true;
}

Error start_virtual_thread_parks(jvmtiEnv* jvmti, JNIEnv* jni) {
  if (jni == nullptr) return Error("virtual threads: no JNI environment on this thread");
  bool present = false;
  if (Error e = learn_classes(jni, &present)) return Error("virtual threads: " + e.message());
  if (!present) return Error::ok();
  jvmtiCapabilities caps{};
  if (jvmti->GetCapabilities(&caps) != JVMTI_ERROR_NONE || !hotspot::can_support_virtual_threads(caps)) {
    return Error("virtual threads: the profiler's JVMTI environment lacks can_support_virtual_threads");
  }
  if (!find_extension_event(jvmti, "com.sun.hotspot.events.VirtualThreadUnmount", &g_unmount_index) ||
      !find_extension_event(jvmti, "com.sun.hotspot.events.VirtualThreadMount", &g_mount_index)) {
    return Error("virtual threads: the JVM has no VirtualThreadMount/VirtualThreadUnmount extension events");
  }
  g_events_found = true;
  abandon_parks();
  if (jvmti->SetExtensionEventCallback(g_unmount_index, reinterpret_cast<jvmtiExtensionEvent>(&on_unmount)) !=
          JVMTI_ERROR_NONE ||
      jvmti->SetExtensionEventCallback(g_mount_index, reinterpret_cast<jvmtiExtensionEvent>(&on_mount)) !=
          JVMTI_ERROR_NONE) {
    stop_virtual_thread_parks(jvmti);
    return Error("virtual threads: cannot set the mount and unmount callbacks");
  }
  g_enabled.store(true, std::memory_order_release);
  // The mount event first: an unmount is always followed by the mount that decides it.
  for (jint index : {g_mount_index, g_unmount_index}) {
    if (jvmtiError err = jvmti->SetEventNotificationMode(JVMTI_ENABLE, static_cast<jvmtiEvent>(index), nullptr);
        err != JVMTI_ERROR_NONE) {
      stop_virtual_thread_parks(jvmti);
      return Error("virtual threads: cannot enable the mount and unmount events (JVMTI error " +
                   std::to_string(static_cast<int>(err)) + ")");
    }
  }
  return Error::ok();
}

void stop_virtual_thread_parks(jvmtiEnv* jvmti) {
  g_enabled.store(false, std::memory_order_release);
  if (!g_events_found) return;
  for (jint index : {g_unmount_index, g_mount_index}) {
    jvmti->SetEventNotificationMode(JVMTI_DISABLE, static_cast<jvmtiEvent>(index), nullptr);
  }
  // Setting a null callback also disables the event: nothing of it stays registered.
  jvmti->SetExtensionEventCallback(g_unmount_index, nullptr);
  jvmti->SetExtensionEventCallback(g_mount_index, nullptr);
  abandon_parks();
}

}  // namespace jvmkit::prof
