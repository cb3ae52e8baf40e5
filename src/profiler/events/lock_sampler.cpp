#include "profiler/events/lock_sampler.hpp"

#include <atomic>

#include "base/clock.hpp"
#include "hotspot/jvmti_capabilities.hpp"
#include "profiler/events/event_samples.hpp"
#include "profiler/events/park_hook.hpp"
#include "profiler/events/virtual_thread_parks.hpp"

namespace jvmkit::prof {
namespace {

std::atomic<bool> g_armed{false};
std::atomic<int64_t> g_threshold_ns{0};

// When this OS thread began to wait for a contended monitor, where JVMTI thread-local storage
// cannot be had; 0 when it is not waiting (or the wait began before sampling was armed).
thread_local int64_t t_enter_ns = 0;

// The enter time in the profiler's JVMTI thread-local storage of the current Java thread: a
// virtual thread's own while it is mounted (HotSpot rebinds the storage at mount), so the time
// follows a virtual thread that unmounts while it waits (JDK 24+) to the carrier it enters on.
// Stored odd ((ns << 1) | 1); an even value is a park of virtual_thread_parks.cpp. Returns whether
// the storage could be written.
bool store_enter(jvmtiEnv* jvmti, int64_t ns) {
  void* value = ns == 0 ? nullptr : reinterpret_cast<void*>((static_cast<uintptr_t>(ns) << 1) | 1);
  return jvmti->SetThreadLocalStorage(nullptr, value) == JVMTI_ERROR_NONE;
}
// The enter time kept for the current Java thread (cleared), 0 when there is none.
int64_t take_enter(jvmtiEnv* jvmti) {
  void* value = nullptr;
  if (jvmti->GetThreadLocalStorage(nullptr, &value) == JVMTI_ERROR_NONE) {
    const auto bits = reinterpret_cast<uintptr_t>(value);
    if ((bits & 1) != 0) {
      jvmti->SetThreadLocalStorage(nullptr, nullptr);
      return static_cast<int64_t>(bits >> 1);
    }
  }
  const int64_t ns = t_enter_ns;
  t_enter_ns = 0;
  return ns;
}

constexpr jvmtiEvent kMonitorEvents[] = {JVMTI_EVENT_MONITOR_CONTENDED_ENTER, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED};

}  // namespace

bool lock_sampling_armed() { return g_armed.load(std::memory_order_acquire); }
int64_t lock_threshold_ns() { return g_threshold_ns.load(std::memory_order_relaxed); }

Error start_lock_sampling(jvmtiEnv* jvmti, JNIEnv* jni, int64_t threshold_ns, std::string* park_note) {
  park_note->clear();
  jvmtiCapabilities caps{};
  caps.can_generate_monitor_events = 1;
  if (jvmtiError err = jvmti->AddCapabilities(&caps); err != JVMTI_ERROR_NONE) {
    return Error("lock: the JVM cannot report contended monitors (can_generate_monitor_events: JVMTI error " +
                 std::to_string(static_cast<int>(err)) + ")");
  }
  // JDK 21+: events and thread-local storage of virtual threads; older JVMs refuse the bit.
  jvmtiCapabilities virtual_threads{};
  hotspot::set_can_support_virtual_threads(&virtual_threads);
  jvmti->AddCapabilities(&virtual_threads);
  g_threshold_ns.store(threshold_ns, std::memory_order_relaxed);
  g_armed.store(true, std::memory_order_release);
  for (jvmtiEvent ev : kMonitorEvents) {
    if (jvmtiError err = jvmti->SetEventNotificationMode(JVMTI_ENABLE, ev, nullptr); err != JVMTI_ERROR_NONE) {
      stop_lock_sampling(jvmti, jni);
      return Error("lock: cannot enable the monitor events (JVMTI error " + std::to_string(static_cast<int>(err)) +
                   ")");
    }
  }
  if (Error e = install_park_hook(jvmti, jni)) *park_note = e.message();
  if (Error e = start_virtual_thread_parks(jvmti, jni)) *park_note += (park_note->empty() ? "" : "; ") + e.message();
  return Error::ok();
}

void stop_lock_sampling(jvmtiEnv* jvmti, JNIEnv* jni) {
  g_armed.store(false, std::memory_order_release);
  for (jvmtiEvent ev : kMonitorEvents) jvmti->SetEventNotificationMode(JVMTI_DISABLE, ev, nullptr);
  stop_virtual_thread_parks(jvmti);
  remove_park_hook(jni);
}

void lock_waited(jvmtiEnv* jvmti, int64_t waited_ns, jclass lock_class, bool park) {
  if (waited_ns < g_threshold_ns.load(std::memory_order_relaxed)) {
    count_below_threshold(EngineKind::kLock);
    return;
  }
  auto* sample = new EventSample;
  sample->kind = EngineKind::kLock;
  // A park without a blocker (LockSupport.park() with no argument) names no lock.
  sample->class_name = lock_class != nullptr ? java_class_name(jvmti, lock_class) : "[no blocker]";
  sample->weight = waited_ns;
  sample->park = park;
  request_event_trace(jvmti, sample);
}

void JNICALL on_monitor_contended_enter(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, jobject) {
  if (lock_sampling_armed() && virtual_monitor_enter(jvmti, jni, thread)) return;
  const int64_t now = lock_sampling_armed() ? jvmkit::monotonic_ns() : 0;
  if (!store_enter(jvmti, now)) t_enter_ns = now;
}

void JNICALL on_monitor_contended_entered(jvmtiEnv* jvmti, JNIEnv* jni, jthread, jobject object) {
  if (virtual_monitor_entered(jvmti, jni, object)) return;
  const int64_t entered = take_enter(jvmti);
  if (entered == 0 || !lock_sampling_armed()) return;
  const int64_t waited = jvmkit::monotonic_ns() - entered;
  jclass klass = jni->GetObjectClass(object);
  lock_waited(jvmti, waited, klass, false);
  jni->DeleteLocalRef(klass);
}

}  // namespace jvmkit::prof
