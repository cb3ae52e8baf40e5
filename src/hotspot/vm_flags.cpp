#include "hotspot/vm_flags.hpp"

#include <string>
#include <vector>

#include "hotspot/java_vm.hpp"

namespace jvmkit::hotspot {
namespace {

// The flags jvmkit reads, found together by the first look-up of any flag: one read of libjvm's
// symbol table instead of one per flag.
constexpr const char* kFlagsRead[] = {"UseSerialGC", "UseParallelGC", "UseG1GC", "UseCompressedOops",
                                      "DebugNonSafepoints"};

}  // namespace

std::optional<bool> bool_flag(const char* name) {
  std::optional<elf::LoadedObject> jvm = libjvm();
  if (!jvm) return std::nullopt;
  std::vector<const char*> names{name};
  names.insert(names.end(), std::begin(kFlagsRead), std::end(kFlagsRead));
  std::string why;
  const std::optional<uintptr_t> address = elf::find_data_symbols(*jvm, names, &why).front();
  if (!address) return std::nullopt;
  return *reinterpret_cast<const volatile bool*>(*address);
}

}  // namespace jvmkit::hotspot
