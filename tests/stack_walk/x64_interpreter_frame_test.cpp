// How an interpreter frame is described from its Method* and bytecode pointer slots: a Java
// method at its bci, and a native method run by the interpreter's native entry, whose bcp slot
// holds 0 or, once the entry saved its bytecode-pointer register for a call into the VM, the
// start of its empty code (fake_method.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "fake_method.hpp"
#include "hotspot/method_layout.hpp"
#include "stack_walk/signal/x64/java_frames.hpp"

namespace jvmkit::walk {
namespace {

using testing::FakeMethod;

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// An interpreter frame whose rbp is words[10]: Method* 3 words below it, bcp 8 words below.
struct FakeInterpreterFrame {
  FakeInterpreterFrame(const FakeMethod& m, uintptr_t bcp) {
    words[10 - 3] = m.method();
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
  const FakeMethod m(16);
  hotspot::AsgctFrame frame{};
  ASSERT_TRUE(FakeInterpreterFrame(m, m.bcp(7)).describe(&frame));
  EXPECT_EQ(frame.method_id, m.id());
  EXPECT_EQ(frame.lineno, 7);
  // A bytecode pointer outside the method's code is no frame of it.
  EXPECT_FALSE(FakeInterpreterFrame(m, m.bcp(16)).describe(&frame));
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
  FakeMethod m(16);
  m.words[11] = 0;  // the class's jmethodIDs not made yet
  hotspot::AsgctFrame frame{};
  EXPECT_FALSE(FakeInterpreterFrame(m, m.code()).describe(&frame));
}

}  // namespace
}  // namespace jvmkit::walk
