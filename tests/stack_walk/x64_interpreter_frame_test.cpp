// How an interpreter frame is described from its Method* and bytecode pointer slots: a Java
// method at its bci, and a native method run by the interpreter's native entry, whose bcp slot
// holds 0 or, once the entry saved its bytecode-pointer register for a call into the VM, the
// start of its empty code. Fake Method, ConstMethod, ConstantPool and class with HotSpot's
// layout of pointers, at offsets chosen here.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "hotspot/method_layout.hpp"
#include "stack_walk/signal/x64/java_frames.hpp"

namespace jvmkit::walk {
namespace {

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// One method and everything its jmethodID is read through (MethodLayout::method_id).
struct FakeMethod {
  static constexpr size_t kConstMethodSize = 64;  // the bytecodes follow the ConstMethod

  explicit FakeMethod(uint16_t code_size) {
    method[1] = address(const_method);  // Method::_constMethod at 8
    const_method[1] = address(pool);    // ConstMethod::_constants at 8
    const uint16_t idnum = 1;           // ConstMethod::_method_idnum at 16
    std::memcpy(reinterpret_cast<uint8_t*>(const_method) + 16, &idnum, sizeof(idnum));
    std::memcpy(reinterpret_cast<uint8_t*>(const_method) + 18, &code_size, sizeof(code_size));
    pool[1] = address(holder);  // ConstantPool::_pool_holder at 8
    holder[2] = address(ids);   // InstanceKlass::_methods_jmethod_ids at 16
    ids[0] = 2;                 // two ids: idnum 0 and 1
    ids[1] = 0x1000;
    ids[2] = 0x2000;
  }
  static hotspot::MethodLayout layout() {
    hotspot::MethodLayout l;
    l.const_method = 8;
    l.constants = 8;
    l.method_idnum = 16;
    l.code_size = 18;
    l.const_method_size = kConstMethodSize;
    l.pool_holder = 8;
    l.jmethod_ids = 16;
    return l;
  }
  uintptr_t code() const { return address(const_method) + kConstMethodSize; }
  jmethodID id() const { return reinterpret_cast<jmethodID>(ids[2]); }

  alignas(8) uintptr_t method[4] = {};
  alignas(8) uintptr_t const_method[16] = {};  // 64 bytes of ConstMethod, then up to 64 of code
  alignas(8) uintptr_t pool[4] = {};
  alignas(8) uintptr_t holder[4] = {};
  alignas(8) uintptr_t ids[3] = {};
};

// An interpreter frame whose rbp is words[10]: Method* 3 words below it, bcp 8 words below.
struct FakeInterpreterFrame {
  FakeInterpreterFrame(const FakeMethod& m, uintptr_t bcp) {
    words[10 - 3] = address(m.method);
    words[10 - 8] = bcp;
  }
  bool describe(hotspot::AsgctFrame* frame) const {
    CodeRange interpreter{};
    interpreter.kind = CodeKind::kInterpreter;
    const hotspot::MethodLayout layout = FakeMethod::layout();
    const StackBounds bounds{address(words), address(words + 16)};
    VirtualFrames out;
    if (!describe_java_frame(interpreter, Regs{0, address(words), address(words + 10)}, bounds, &layout, Describe::kAll,
                             &out)) {
      return false;
    }
    EXPECT_EQ(out.count, 1);
    *frame = out.frames[0];
    return true;
  }
  alignas(8) uintptr_t words[16] = {};
};

TEST(X64InterpreterFrame, AJavaMethodIsAtTheBciOfItsBytecodePointer) {
  const FakeMethod m(20);
  hotspot::AsgctFrame frame{};
  ASSERT_TRUE(FakeInterpreterFrame(m, m.code() + 7).describe(&frame));
  EXPECT_EQ(frame.method_id, m.id());
  EXPECT_EQ(frame.lineno, 7);
  // A bytecode pointer outside the method's code is no frame of it.
  EXPECT_FALSE(FakeInterpreterFrame(m, m.code() + 20).describe(&frame));
  EXPECT_FALSE(FakeInterpreterFrame(m, m.code() - 1).describe(&frame));
}

TEST(X64InterpreterFrame, ANativeMethodIsNativeWhateverItsBcpSlotHolds) {
  const FakeMethod m(0);  // no bytecodes: a native method
  for (const uintptr_t bcp : {uintptr_t{0}, m.code()}) {
    hotspot::AsgctFrame frame{};
    ASSERT_TRUE(FakeInterpreterFrame(m, bcp).describe(&frame)) << "bcp " << bcp;
    EXPECT_EQ(frame.method_id, m.id());
    EXPECT_EQ(frame.lineno, hotspot::kAsgctNativeBci);
  }
}

TEST(X64InterpreterFrame, AFrameWhoseClassHasNoIdsYetIsNotDescribed) {
  FakeMethod m(20);
  m.holder[2] = 0;  // the class's jmethodIDs not made yet
  hotspot::AsgctFrame frame{};
  EXPECT_FALSE(FakeInterpreterFrame(m, m.code()).describe(&frame));
}

}  // namespace
}  // namespace jvmkit::walk
