#include "hotspot/method_layout.hpp"

#include <atomic>
#include <mutex>
#include <optional>

#include "hotspot/vm_structs.hpp"

namespace jvmkit::hotspot {

namespace {

constinit std::atomic<const MethodLayout*> g_known{nullptr};

std::optional<MethodLayout> read_layout() {
  const auto const_method = vm_struct_offset("Method", "_constMethod");
  const auto constants = vm_struct_offset("ConstMethod", "_constants");
  const auto idnum = vm_struct_offset("ConstMethod", "_method_idnum");
  const auto code_size = vm_struct_offset("ConstMethod", "_code_size");
  const auto cm_size = vm_type_size("ConstMethod");
  const auto holder = vm_struct_offset("ConstantPool", "_pool_holder");
  const auto ids = vm_struct_offset("InstanceKlass", "_methods_jmethod_ids");
  if (!const_method || !constants || !idnum || !code_size || !cm_size || !holder || !ids) return std::nullopt;
  return MethodLayout{*const_method, *constants, *idnum, *code_size, *cm_size, *holder, *ids};
}

}  // namespace

const MethodLayout* learn_method_layout() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::optional<MethodLayout> layout = read_layout()) {
      g_known.store(new MethodLayout(*layout), std::memory_order_release);  // kept for the process
    }
  });
  return g_known.load(std::memory_order_acquire);
}

const MethodLayout* known_method_layout() noexcept { return g_known.load(std::memory_order_acquire); }

void publish_method_layout_for_testing(const MethodLayout& layout) {
  static MethodLayout published;
  published = layout;
  g_known.store(&published, std::memory_order_release);
}

}  // namespace jvmkit::hotspot
