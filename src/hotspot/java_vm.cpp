#include "hotspot/java_vm.hpp"

#include <dlfcn.h>

#include "hotspot/elf_symbols.hpp"

namespace jvmkit::hotspot {
namespace {

using GetCreatedVms = jint(JNICALL*)(JavaVM**, jsize, jsize*);

JavaVM* created_vm(GetCreatedVms get_vms) {
  JavaVM* vm = nullptr;
  jsize count = 0;
  if (get_vms(&vm, 1, &count) != JNI_OK || count < 1) return nullptr;
  return vm;
}

// The symbol is trusted only if it looks like a JavaVM of this libjvm: its function table and the
// table's GetEnv lie in the library, and the table's reserved slots are empty as HotSpot leaves them.
bool looks_like_java_vm(const elf::LoadedObject& jvm, uintptr_t address) {
  const auto* vm = reinterpret_cast<const JavaVM*>(address);
  const JNIInvokeInterface_* functions = vm->functions;
  const auto table = reinterpret_cast<uintptr_t>(functions);
  if (functions == nullptr || !jvm.contains(table, sizeof(JNIInvokeInterface_))) return false;
  if (functions->reserved0 != nullptr || functions->reserved1 != nullptr || functions->reserved2 != nullptr) {
    return false;
  }
  return jvm.contains(reinterpret_cast<uintptr_t>(functions->GetEnv), 1);
}

}  // namespace

std::optional<elf::LoadedObject> libjvm() {
  void* in_jvm = dlsym(RTLD_DEFAULT, "JNI_GetCreatedJavaVMs");
  if (in_jvm == nullptr) return std::nullopt;
  return elf::object_containing(in_jvm);
}

JavaVM* created_java_vm() {
  auto get_vms = reinterpret_cast<GetCreatedVms>(dlsym(RTLD_DEFAULT, "JNI_GetCreatedJavaVMs"));
  return get_vms != nullptr ? created_vm(get_vms) : nullptr;
}

JavaVM* find_java_vm(std::string* why) {
  auto get_vms = reinterpret_cast<GetCreatedVms>(dlsym(RTLD_DEFAULT, "JNI_GetCreatedJavaVMs"));
  if (get_vms == nullptr) {
    *why = "JNI_GetCreatedJavaVMs not found: not running in a JVM";
    return nullptr;
  }
  if (JavaVM* vm = created_vm(get_vms)) return vm;
  std::optional<elf::LoadedObject> jvm = libjvm();
  if (!jvm) {
    *why = "the library that defines JNI_GetCreatedJavaVMs was not found";
    return nullptr;
  }
  std::optional<uintptr_t> address = elf::find_data_symbol(*jvm, "main_vm", why);
  if (!address) return nullptr;
  if (!looks_like_java_vm(*jvm, *address)) {
    *why = jvm->path + ": main_vm does not hold HotSpot's JNI invocation interface";
    return nullptr;
  }
  return reinterpret_cast<JavaVM*>(*address);
}

}  // namespace jvmkit::hotspot
