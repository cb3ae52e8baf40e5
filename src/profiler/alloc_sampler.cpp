#include "profiler/alloc_sampler.hpp"

#include <atomic>
#include <string>

#include "profiler/event_samples.hpp"
#include "profiler/sample_weight.hpp"

namespace jvmkit::prof {
namespace {

std::atomic<bool> g_armed{false};
std::atomic<int64_t> g_interval{0};

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

Error start_alloc_sampling(jvmtiEnv* jvmti, int64_t interval_bytes) {
  jvmtiCapabilities caps{};
  caps.can_generate_sampled_object_alloc_events = 1;
  if (jvmtiError err = jvmti->AddCapabilities(&caps); err != JVMTI_ERROR_NONE) {
    return Error("alloc: the JVM cannot sample allocations (can_generate_sampled_object_alloc_events: " +
                 jvmti_error_text(jvmti, err) + ")");
  }
  if (jvmtiError err = jvmti->SetHeapSamplingInterval(static_cast<jint>(interval_bytes)); err != JVMTI_ERROR_NONE) {
    return Error("alloc: SetHeapSamplingInterval failed: " + jvmti_error_text(jvmti, err));
  }
  g_interval.store(interval_bytes, std::memory_order_relaxed);
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
}

void JNICALL on_sampled_object_alloc(jvmtiEnv* jvmti, JNIEnv* /*jni*/, jthread /*thread*/, jobject /*object*/,
                                     jclass klass, jlong size) {
  if (!g_armed.load(std::memory_order_acquire)) return;
  auto* sample = new EventSample;
  sample->kind = EngineKind::kAlloc;
  sample->class_name = java_class_name(jvmti, klass);
  sample->weight = alloc_sample_weight(size, g_interval.load(std::memory_order_relaxed));
  request_event_trace(jvmti, sample);
}

}  // namespace jvmkit::prof
