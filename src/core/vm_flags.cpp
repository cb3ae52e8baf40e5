#include "core/vm_flags.hpp"

#include <dlfcn.h>

#include <string>

#include "core/elf_symbols.hpp"

namespace jvmkit::hotspot {

std::optional<bool> bool_flag(const char* name) {
  void* in_jvm = dlsym(RTLD_DEFAULT, "JNI_GetCreatedJavaVMs");
  if (in_jvm == nullptr) return std::nullopt;
  std::optional<elf::LoadedObject> jvm = elf::object_containing(in_jvm);
  if (!jvm) return std::nullopt;
  std::string why;
  std::optional<uintptr_t> address = elf::find_data_symbol(*jvm, name, &why);
  if (!address) return std::nullopt;
  return *reinterpret_cast<const volatile bool*>(*address);
}

}  // namespace jvmkit::hotspot
