#include "hotspot/vm_flags.hpp"

#include <string>

#include "hotspot/java_vm.hpp"

namespace jvmkit::hotspot {

std::optional<bool> bool_flag(const char* name) {
  std::optional<elf::LoadedObject> jvm = libjvm();
  if (!jvm) return std::nullopt;
  std::string why;
  std::optional<uintptr_t> address = elf::find_data_symbol(*jvm, name, &why);
  if (!address) return std::nullopt;
  return *reinterpret_cast<const volatile bool*>(*address);
}

}  // namespace jvmkit::hotspot
