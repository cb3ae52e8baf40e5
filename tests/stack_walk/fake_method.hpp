// A fake Method* for walks that read an interpreter frame's method (hotspot::MethodLayout), with
// the layout of pointers HotSpot has, at offsets chosen here: a Method (words[0..1]) with its
// ConstMethod (words[2..4], idnum 1, then CODE_SIZE bytes of bytecodes from words[5], at most 16),
// ConstantPool (words[8..9]), InstanceKlass (words[10..11]) and its jmethod_ids (words[12..14]:
// length 2, M(40), M(41)): the method is M(41). A code size of 0 makes it a native method.
#pragma once

#include <jni.h>

#include <cstdint>
#include <cstring>

#include "fake_code.hpp"
#include "hotspot/method_layout.hpp"

namespace jvmkit::walk::testing {

struct FakeMethod {
  explicit FakeMethod(uint16_t code_size = 16) {
    words[1] = addr(2);  // Method::_constMethod
    words[3] = addr(8);  // ConstMethod::_constants
    const uint16_t idnum = 1;
    std::memcpy(&words[4], &idnum, 2);                                   // ConstMethod::_method_idnum
    std::memcpy(reinterpret_cast<char*>(&words[4]) + 2, &code_size, 2);  // ConstMethod::_code_size
    words[9] = addr(10);                                                 // ConstantPool::_pool_holder
    words[11] = addr(12);                                                // InstanceKlass::_methods_jmethod_ids
    words[12] = 2;
    words[13] = reinterpret_cast<uintptr_t>(M(40));
    words[14] = reinterpret_cast<uintptr_t>(M(41));
  }

  static hotspot::MethodLayout layout() {
    hotspot::MethodLayout l;
    l.const_method = 8;
    l.constants = 8;
    l.method_idnum = 16;
    l.code_size = 18;
    l.const_method_size = 24;
    l.pool_holder = 8;
    l.jmethod_ids = 8;
    return l;
  }

  uintptr_t addr(int i) const { return reinterpret_cast<uintptr_t>(&words[i]); }
  uintptr_t method() const { return addr(0); }
  uintptr_t code() const { return addr(5); }
  uintptr_t bcp(int bci) const { return code() + bci; }
  jmethodID id() const { return M(41); }

  uintptr_t words[16] = {};
};

}  // namespace jvmkit::walk::testing
