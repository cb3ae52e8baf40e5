// libjvmkit_walk.so loaded as an agent (-agentpath, or dynamic attach): it makes the Unbiased
// Stack-Walk API's functions JVMTI extension functions of every environment created after it, and
// does nothing else: no thread, no signal handler, no event until a tool calls Enable.
#include <jni.h>
#include <jvmkit/stack_walk.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "stack_walk/extension/extension_functions.hpp"

namespace {

jint load(JavaVM* vm, const char* options, const char* how) {
  if (options != nullptr && options[0] != '\0') {
    std::fprintf(stderr,
                 "jvmkit_walk: unknown agent option '%s': libjvmkit_walk.so as an agent takes no options "
                 "(docs/stack_walk.md, \"Using the API from your agent\")\n",
                 options);
    return JNI_ERR;
  }
  // The VM is known here: Enable need not look for it (its invocation interface is jvmkit's now).
  JvmkitSetJavaVM(vm);
  std::string why;
  if (!jvmkit::walk::extension::install(vm, &why)) {
    std::fprintf(stderr, "jvmkit_walk: %s: cannot add the extension functions: %s\n", how, why.c_str());
    return JNI_ERR;
  }
  return JNI_OK;
}

}  // namespace

extern "C" JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
  return load(vm, options, "Agent_OnLoad");
}

extern "C" JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM* vm, char* options, void*) {
  return load(vm, options, "Agent_OnAttach");
}
