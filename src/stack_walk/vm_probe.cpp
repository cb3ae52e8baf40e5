#include "stack_walk/vm_probe.hpp"

#include <atomic>
#include <cstdio>
#include <optional>
#include <string>

#include "hotspot/java_thread.hpp"
#include "hotspot/jdk_version.hpp"

namespace jvmkit::walk {

void probe_thread_facts(JNIEnv* jni) {
  std::string why;
  if (jni == nullptr || !hotspot::learn_thread_key(jni, &why)) return;
  hotspot::learn_java_thread_layout(jni, &why);
}

bool probe_thread_key(JNIEnv* jni) {
  // Without the key the handler cannot tell a thread HotSpot is still starting, where JNI's GetEnv
  // may deadlock (hotspot/java_thread.hpp, Attachment), from an attached one: no sampling then.
  std::string why;
  if (hotspot::learn_thread_key(jni, &why)) return true;
  std::fprintf(stderr,
               "jvmkit: EnableRequestStackTrace: cannot find HotSpot's thread key (%s); signal handlers could "
               "not tell which threads are safe to sample, so the stack walker stays disabled\n",
               why.c_str());
  return false;
}

void probe_thread_layout(JNIEnv* jni) {
  // Without it the handler does not read the stack at all: no recovery, no physical walk (frame
  // types then come from AsyncGetCallTrace's answer alone). Worth a warning, not a failure.
  std::string why;
  if (hotspot::learn_java_thread_layout(jni, &why) == nullptr) {
    std::fprintf(stderr,
                 "jvmkit: warning: cannot read this JVM's thread stack bounds (%s); samples AsyncGetCallTrace "
                 "cannot place are not recovered, and frame types are approximate\n",
                 why.c_str());
  }
}

void warn_about_jdk(jvmtiEnv* jvmti) {
  static std::atomic<bool> warned{false};
  char* value = nullptr;
  if (jvmti->GetSystemProperty("java.runtime.version", &value) != JVMTI_ERROR_NONE || value == nullptr) return;
  std::optional<JdkVersion> version = parse_jdk_version(value);
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(value));
  if (!version) return;
  std::string warning = jmethodid_safety_warning(*version);
  if (!warning.empty() && !warned.exchange(true)) std::fprintf(stderr, "jvmkit: %s\n", warning.c_str());
}

}  // namespace jvmkit::walk
