#include "profiler/events/alloc_sampler.hpp"

#include <atomic>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "profiler/events/event_samples.hpp"
#include "profiler/events/sample_weight.hpp"

namespace jvmkit::prof {
namespace {

std::atomic<bool> g_armed{false};
std::atomic<int64_t> g_interval{0};
std::atomic<bool> g_live{false};
std::atomic<jlong> g_next_tag{1};
std::mutex g_freed_mutex;
std::vector<jlong> g_freed;  // guarded by g_freed_mutex

std::string jvmti_error_text(jvmtiEnv* jvmti, jvmtiError err) {
  char* name = nullptr;
  std::string text = "JVMTI error " + std::to_string(static_cast<int>(err));
  if (jvmti->GetErrorName(err, &name) == JVMTI_ERROR_NONE && name != nullptr) {
    text += " (" + std::string(name) + ")";
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
  }
  return text;
}

}  // namespace

Error start_alloc_sampling(jvmtiEnv* jvmti, int64_t interval_bytes, bool live) {
  jvmtiCapabilities caps{};
  caps.can_generate_sampled_object_alloc_events = 1;
  caps.can_tag_objects = live ? 1 : 0;
  caps.can_generate_object_free_events = live ? 1 : 0;
  if (jvmtiError err = jvmti->AddCapabilities(&caps); err != JVMTI_ERROR_NONE) {
    return Error("alloc: the JVM cannot sample allocations (can_generate_sampled_object_alloc_events: " +
                 jvmti_error_text(jvmti, err) + ")");
  }
  if (jvmtiError err = jvmti->SetHeapSamplingInterval(static_cast<jint>(interval_bytes)); err != JVMTI_ERROR_NONE) {
    return Error("alloc: SetHeapSamplingInterval failed: " + jvmti_error_text(jvmti, err));
  }
  g_interval.store(interval_bytes, std::memory_order_relaxed);
  g_live.store(live, std::memory_order_relaxed);
  if (live) {
    {
      std::lock_guard<std::mutex> lock(g_freed_mutex);
      g_freed.clear();
    }
    if (jvmtiError err = jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_OBJECT_FREE, nullptr);
        err != JVMTI_ERROR_NONE) {
      return Error("alloc: live: cannot enable ObjectFree: " + jvmti_error_text(jvmti, err));
    }
  }
  g_armed.store(true, std::memory_order_release);
  if (jvmtiError err = jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, nullptr);
      err != JVMTI_ERROR_NONE) {
    g_armed.store(false, std::memory_order_release);
    return Error("alloc: cannot enable SampledObjectAlloc: " + jvmti_error_text(jvmti, err));
  }
  return Error::ok();
}

void stop_alloc_sampling(jvmtiEnv* jvmti) {
  g_armed.store(false, std::memory_order_release);
  jvmti->SetEventNotificationMode(JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, nullptr);
  // HotSpot posts the ObjectFree events of freed objects still pending when the event is disabled.
  if (g_live.load(std::memory_order_relaxed)) {
    jvmti->SetEventNotificationMode(JVMTI_DISABLE, JVMTI_EVENT_OBJECT_FREE, nullptr);
  }
}

std::vector<jlong> take_freed_tags() {
  std::lock_guard<std::mutex> lock(g_freed_mutex);
  return std::exchange(g_freed, {});
}

void JNICALL on_object_free(jvmtiEnv*, jlong tag) {
  std::lock_guard<std::mutex> lock(g_freed_mutex);
  g_freed.push_back(tag);
}

void JNICALL on_sampled_object_alloc(jvmtiEnv* jvmti, JNIEnv* /*jni*/, jthread /*thread*/, jobject object, jclass klass,
                                     jlong size) {
  if (!g_armed.load(std::memory_order_acquire)) return;
  auto* sample = new EventSample;
  sample->kind = EngineKind::kAlloc;
  sample->class_name = java_class_name(jvmti, klass);
  sample->weight = alloc_sample_weight(size, g_interval.load(std::memory_order_relaxed));
  if (g_live.load(std::memory_order_relaxed)) {
    const jlong tag = g_next_tag.fetch_add(1, std::memory_order_relaxed);
    if (jvmti->SetTag(object, tag) == JVMTI_ERROR_NONE) sample->tag = tag;
  }
  request_event_trace(jvmti, sample);
}

}  // namespace jvmkit::prof
