// The physical walk and the frame-shape checks, fed a fake code cache and a fake stack.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "stack_walk/signal/x64/physical_walk.hpp"

namespace jvmkit::walk {
namespace {

jmethodID M(uintptr_t v) { return reinterpret_cast<jmethodID>(v); }

// 512 bytes of "code": nmethod A (C2 frame of 0x20 bytes), nmethod B (C1 frame: rbp pushed, then
// 0x10 bytes), the interpreter, and a stub, 128 bytes each.
class FakeCode {
 public:
  FakeCode() : bytes_(512, 0x90) {
    ranges_.push_back(nmethod(0, M(1), 0x20, false));
    ranges_.push_back(nmethod(128, M(2), 0x10, true));
    ranges_.push_back(other(256, CodeKind::kInterpreter));
    ranges_.push_back(other(384, CodeKind::kStub));
    // A call in B (E8 rel32) whose return address is B + 40; none before B + 80.
    bytes_[128 + 35] = 0xE8;
  }
  uintptr_t at(size_t offset) const { return reinterpret_cast<uintptr_t>(bytes_.data()) + offset; }
  CodeSnapshot snapshot() const { return CodeSnapshot(ranges_); }
  const CodeRange& range(size_t i) const { return ranges_[i]; }

 private:
  CodeRange nmethod(size_t offset, jmethodID method, uint32_t frame, bool pushes_rbp) {
    CodeRange r = other(offset, CodeKind::kNMethod);
    r.method = method;
    r.frame_size = frame;
    r.pushes_rbp = pushes_rbp;
    r.prologue_end = 8;
    return r;
  }
  CodeRange other(size_t offset, CodeKind kind) {
    CodeRange r{};
    r.start = at(offset);
    r.end = r.start + 128;
    r.kind = kind;
    r.enclosing = -1;
    return r;
  }
  std::vector<uint8_t> bytes_;
  std::vector<CodeRange> ranges_;
};

// A stack: A's frame at the bottom (lowest address), called from B, called from an interpreter
// frame, entered from the stub.
struct FakeStack {
  uintptr_t words[64] = {};
  uintptr_t addr(int i) const { return reinterpret_cast<uintptr_t>(&words[i]); }
  uintptr_t top() const { return addr(64); }

  explicit FakeStack(const FakeCode& code) {
    words[4] = code.at(128 + 40);   // A's return address (sp + 0x20): into B, after its call
    words[7] = addr(20);            // B's saved rbp (C1: just below its return address)
    words[8] = code.at(256 + 10);   // B's return address (sp + 0x10 + 8): into the interpreter
    words[19] = addr(22);           // the interpreter frame's sender SP (rbp - 8)
    words[20] = addr(40);           // its caller's rbp
    words[21] = code.at(384 + 20);  // its return address (rbp + 8): into the stub
  }
};

TEST(X64Walk, WalksCompiledAndInterpreterFramesUpToAStub) {
  FakeCode code;
  FakeStack stack(code);
  const CodeSnapshot snapshot = code.snapshot();
  PhysicalFrame out[8];
  const int n = walk_physical(snapshot, Regs{code.at(60), stack.addr(0), 0}, stack.top(), out, 8);
  ASSERT_EQ(n, 3);
  EXPECT_EQ(out[0].kind, CodeKind::kNMethod);
  EXPECT_EQ(out[0].root, M(1));
  EXPECT_EQ(out[1].kind, CodeKind::kNMethod);
  EXPECT_EQ(out[1].root, M(2));
  EXPECT_EQ(out[2].kind, CodeKind::kInterpreter);
}

// HotSpot deoptimizes a compiled frame by patching the return address into it with its
// nmethod's deoptimization handler: a return into B that follows no call. B's frame is there but
// cannot be walked past; it is the last frame written, so that a trace ending above it is known
// to be cut short.
TEST(X64Walk, ACallerReachedByAReturnThatFollowsNoCallIsTheLastFrame) {
  FakeCode code;
  FakeStack stack(code);
  stack.words[4] = code.at(128 + 90);  // inside B, no call before it
  const CodeSnapshot snapshot = code.snapshot();
  PhysicalFrame out[8];
  ASSERT_EQ(walk_physical(snapshot, Regs{code.at(60), stack.addr(0), 0}, stack.top(), out, 8), 2);
  EXPECT_EQ(out[0].root, M(1));
  EXPECT_EQ(out[1].kind, CodeKind::kNMethod);
  EXPECT_EQ(out[1].root, M(2));
  // With room for one frame only, that frame is A.
  EXPECT_EQ(walk_physical(snapshot, Regs{code.at(60), stack.addr(0), 0}, stack.top(), out, 1), 1);
}

TEST(X64Walk, JavaCallerStepsSayWhyTheWalkEnds) {
  FakeCode code;
  FakeStack stack(code);
  const CodeSnapshot snapshot = code.snapshot();
  const StackBounds bounds{stack.addr(0), stack.top()};
  const Regs a{code.at(60), stack.addr(0), 0};
  Regs caller{};
  const CodeRange* caller_range = nullptr;
  EXPECT_EQ(java_caller(snapshot, bounds, code.range(0), a, &caller, &caller_range), CallerStep::kCaller);
  EXPECT_EQ(caller_range->method, M(2));
  EXPECT_EQ(caller.sp, stack.addr(5));
  // Into the stub that entered Java: the Java frames end here.
  const Regs interpreted{code.at(256 + 10), stack.addr(9), stack.addr(20)};
  EXPECT_EQ(java_caller(snapshot, bounds, code.range(2), interpreted, &caller, &caller_range), CallerStep::kEnd);
  // Into code nobody reported: the end, too.
  stack.words[4] = code.at(512) + 4096;
  EXPECT_EQ(java_caller(snapshot, bounds, code.range(0), a, &caller, &caller_range), CallerStep::kEnd);
  // Into compiled code after no call (a frame being deoptimized): a caller that is there.
  stack.words[4] = code.at(128 + 90);
  caller_range = nullptr;
  EXPECT_EQ(java_caller(snapshot, bounds, code.range(0), a, &caller, &caller_range), CallerStep::kCallerUnknown);
  EXPECT_EQ(caller_range->method, M(2));
  // B returns into the interpreter, but the caller's SP lies beyond the readable part of the stack.
  const Regs b{code.at(128 + 40), stack.addr(5), 0};
  EXPECT_EQ(java_caller(snapshot, bounds, code.range(1), b, &caller, &caller_range), CallerStep::kCaller);
  EXPECT_EQ(java_caller(snapshot, StackBounds{stack.addr(0), stack.addr(9)}, code.range(1), b, &caller, &caller_range),
            CallerStep::kCallerUnknown);
  EXPECT_EQ(caller_range->kind, CodeKind::kInterpreter);
}

TEST(X64Walk, NeverReadsAboveTheStackTop) {
  FakeCode code;
  FakeStack stack(code);
  const CodeSnapshot snapshot = code.snapshot();
  PhysicalFrame out[8];
  // The top cuts B's frame: A is walked, B's return slot lies beyond the top.
  EXPECT_EQ(walk_physical(snapshot, Regs{code.at(60), stack.addr(0), 0}, stack.addr(6), out, 8), 1);
}

TEST(X64Walk, FrameSpAdjustmentFindsTheFrameAbovePushedRegisters) {
  FakeCode code;
  FakeStack stack(code);
  const CodeSnapshot snapshot = code.snapshot();
  const StackBounds bounds{stack.addr(0), stack.top()};
  EXPECT_EQ(frame_sp_adjustment(snapshot, code.range(0), bounds, stack.addr(0)), 0);
  // Two registers pushed by an inline intrinsic: the frame starts two words above SP, so its return
  // address (frame size 0x20) is at SP + 0x30.
  uintptr_t words[16] = {};
  words[4] = 0x1234;  // where the return address would be without the pushes
  words[6] = code.at(128 + 40);
  const uintptr_t sp = reinterpret_cast<uintptr_t>(&words[0]);
  const StackBounds pushed{sp, reinterpret_cast<uintptr_t>(&words[16])};
  EXPECT_EQ(frame_sp_adjustment(snapshot, code.range(0), pushed, sp), 16);
  // Nothing plausible within reach.
  words[6] = 0x5678;
  EXPECT_EQ(frame_sp_adjustment(snapshot, code.range(0), pushed, sp), -1);
}

TEST(X64Walk, PlausibleReturnsAreCallSitesOrTheInterpreter) {
  FakeCode code;
  const CodeSnapshot snapshot = code.snapshot();
  EXPECT_TRUE(plausible_return(snapshot, code.at(128 + 40)));
  EXPECT_FALSE(plausible_return(snapshot, code.at(128 + 90)));
  EXPECT_TRUE(plausible_return(snapshot, code.at(256 + 3)));
  EXPECT_FALSE(plausible_return(snapshot, code.at(600)));  // outside every range
}

}  // namespace
}  // namespace jvmkit::walk
