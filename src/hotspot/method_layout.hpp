// What an interpreter frame's Method* is, read directly: its jmethodID and the bci of a bytecode
// pointer. For the one walk that cannot use AsyncGetCallTrace (a stack whose last Java frame is a
// runtime stub, see stack_walk/signal/x64/at_call.cpp).
//
// Offsets come from the JVM's own gHotSpotVMStructs/gHotSpotVMTypes; a layout missing any of them
// is not published and callers do without. A Method* read from a live interpreter frame of the
// current thread stays valid while the frame exists (its class cannot be unloaded meanwhile).
#pragma once

#include <jni.h>

#include <cstdint>
#include <cstring>

#include "base/signal_safe.hpp"

namespace jvmkit::hotspot {

struct MethodLayout {
  intptr_t const_method = 0;       // Method::_constMethod
  intptr_t constants = 0;          // ConstMethod::_constants
  intptr_t method_idnum = 0;       // ConstMethod::_method_idnum (u2)
  intptr_t code_size = 0;          // ConstMethod::_code_size (u2)
  uint64_t const_method_size = 0;  // sizeof(ConstMethod): the bytecodes follow it
  intptr_t pool_holder = 0;        // ConstantPool::_pool_holder
  intptr_t jmethod_ids = 0;        // InstanceKlass::_methods_jmethod_ids: [length, id 0, id 1, ...]

  // SIGNAL SAFE. The jmethodID of METHOD, or nullptr when its class has none for it yet (jvmkit
  // creates them all when a class is prepared).
  JVMKIT_SIGNAL_SAFE jmethodID method_id(uintptr_t method) const noexcept {
    const uintptr_t cm = load(method + const_method);
    if (cm == 0) return nullptr;
    const uintptr_t pool = load(cm + constants);
    const uintptr_t holder = pool != 0 ? load(pool + pool_holder) : 0;
    if (holder == 0) return nullptr;
    const uintptr_t ids = __atomic_load_n(reinterpret_cast<const uintptr_t*>(holder + jmethod_ids), __ATOMIC_ACQUIRE);
    if (ids == 0) return nullptr;
    uint16_t idnum;
    std::memcpy(&idnum, reinterpret_cast<const void*>(cm + method_idnum), sizeof(idnum));
    if (idnum >= load(ids)) return nullptr;
    return reinterpret_cast<jmethodID>(load(ids + 8 * (static_cast<uintptr_t>(idnum) + 1)));
  }

  // SIGNAL SAFE. Whether METHOD has bytecodes: not a native (or abstract) method.
  JVMKIT_SIGNAL_SAFE bool has_bytecodes(uintptr_t method) const noexcept {
    const uintptr_t cm = load(method + const_method);
    if (cm == 0) return false;
    uint16_t size;
    std::memcpy(&size, reinterpret_cast<const void*>(cm + code_size), sizeof(size));
    return size != 0;
  }

  // SIGNAL SAFE. The bci of the bytecode pointer BCP in METHOD, or -1 when BCP is not in its code.
  JVMKIT_SIGNAL_SAFE jint bci(uintptr_t method, uintptr_t bcp) const noexcept {
    const uintptr_t cm = load(method + const_method);
    if (cm == 0) return -1;
    uint16_t size;
    std::memcpy(&size, reinterpret_cast<const void*>(cm + code_size), sizeof(size));
    const uintptr_t code = cm + const_method_size;
    return bcp >= code && bcp < code + size ? static_cast<jint>(bcp - code) : -1;
  }

 private:
  JVMKIT_SIGNAL_SAFE static uintptr_t load(uintptr_t address) noexcept {
    uintptr_t value;
    std::memcpy(&value, reinterpret_cast<const void*>(address), sizeof(value));
    return value;
  }
};

// Learns the layout once (not signal context); later calls return the same answer.
const MethodLayout* learn_method_layout();
// SIGNAL SAFE. The layout once learnt, else nullptr.
JVMKIT_SIGNAL_SAFE const MethodLayout* known_method_layout() noexcept;
// Unit tests of walks that may read an interpreter frame's Method* (no JVM): publishes LAYOUT as if
// learnt. A walk that meets no interpreter frame reads nothing through it.
void publish_method_layout_for_testing(const MethodLayout& layout);

}  // namespace jvmkit::hotspot
