// The compiled caller of a native leaf call (leaf_call.hpp), fed a fake code cache and stack.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "fake_code.hpp"
#include "stack_walk/signal/x64/leaf_call.hpp"

namespace jvmkit::walk {
namespace {

// 384 bytes of "code": an nmethod with a call (E8 rel32) whose return address is +40, the
// interpreter, and a native wrapper with a call whose return address is +40 too.
class FakeCode : public testing::FakeCode {
 public:
  FakeCode() : testing::FakeCode(384) {
    add(0, CodeKind::kNMethod).method = testing::M(1);
    add(128, CodeKind::kInterpreter).method = testing::M(129);
    CodeRange& wrapper = add(256, CodeKind::kNMethod);
    wrapper.method = testing::M(257);
    wrapper.native_wrapper = true;
    call_returning_to(40);
    call_returning_to(256 + 40);
  }
};

// A native PC (not in the code), the stack: the leaf function's rbp frame at words[4] (saved rbp,
// then the return address), a second native frame at words[10] when the first one returns into
// native code.
struct FakeStack {
  uintptr_t words[32] = {};
  uintptr_t addr(int i) const { return reinterpret_cast<uintptr_t>(&words[i]); }
  StackBounds bounds() const { return StackBounds{addr(0), addr(32)}; }
};

constexpr uintptr_t kNativePc = 0x1000;  // outside the fake code

TEST(X64LeafCall, FindsTheCompiledCallerThroughTheLeafFunctionsFrame) {
  FakeCode code;
  FakeStack stack;
  const CodeSnapshot snapshot = code.snapshot();
  stack.words[4] = 0x5150;       // the caller's rbp (C2 keeps data in it)
  stack.words[5] = code.at(40);  // the return address: right after the call
  LeafCaller caller{};
  ASSERT_TRUE(leaf_call_caller(snapshot, stack.bounds(), Regs{kNativePc, stack.addr(0), stack.addr(4)}, &caller));
  EXPECT_EQ(caller.regs.pc, code.at(40));
  EXPECT_EQ(caller.regs.sp, stack.addr(6));
  EXPECT_EQ(caller.regs.fp, 0x5150u);
  EXPECT_EQ(caller.range->start, code.at(0));
}

TEST(X64LeafCall, FollowsNativeFramesUpToTheCaller) {
  FakeCode code;
  FakeStack stack;
  const CodeSnapshot snapshot = code.snapshot();
  stack.words[4] = stack.addr(10);  // libjvm calling on: its caller's rbp frame
  stack.words[5] = 0x2000;          // a native return address
  stack.words[10] = 0;
  stack.words[11] = code.at(40);
  LeafCaller caller{};
  ASSERT_TRUE(leaf_call_caller(snapshot, stack.bounds(), Regs{kNativePc, stack.addr(0), stack.addr(4)}, &caller));
  EXPECT_EQ(caller.regs.pc, code.at(40));
  EXPECT_EQ(caller.regs.sp, stack.addr(12));
}

TEST(X64LeafCall, RefusesWhatIsNoCompiledCallSite) {
  FakeCode code;
  FakeStack stack;
  const CodeSnapshot snapshot = code.snapshot();
  const Regs at{kNativePc, stack.addr(0), stack.addr(4)};
  LeafCaller caller{};
  stack.words[5] = code.at(41);  // in the nmethod, but not after a call
  EXPECT_FALSE(leaf_call_caller(snapshot, stack.bounds(), at, &caller));
  stack.words[5] = code.at(128 + 40);  // the interpreter
  EXPECT_FALSE(leaf_call_caller(snapshot, stack.bounds(), at, &caller));
  stack.words[5] = code.at(256 + 40);  // a native method's wrapper: its frame has no inlined scopes
  EXPECT_FALSE(leaf_call_caller(snapshot, stack.bounds(), at, &caller));
  // rbp outside the stack, or below SP: nothing is read.
  stack.words[5] = code.at(40);
  EXPECT_FALSE(leaf_call_caller(snapshot, stack.bounds(), Regs{kNativePc, stack.addr(0), stack.addr(31)}, &caller));
  EXPECT_FALSE(leaf_call_caller(snapshot, stack.bounds(), Regs{kNativePc, stack.addr(6), stack.addr(4)}, &caller));
  EXPECT_FALSE(leaf_call_caller(snapshot, stack.bounds(), Regs{kNativePc, stack.addr(0), 0x10}, &caller));
}

TEST(X64LeafCall, GivesAsgctTheCallInstructionsLastByte) {
  // HotSpot's records of a call sit at its return address, and AsyncGetCallTrace describes a PC
  // by the first record after it: from the call's last byte that is the call's own record.
  FakeCode code;
  EXPECT_EQ(asgct_pc_for_return_address(code.at(40)), code.at(39));
}

}  // namespace
}  // namespace jvmkit::walk
