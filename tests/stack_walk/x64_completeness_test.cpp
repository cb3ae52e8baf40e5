// The completeness proof, fed a fake code cache and a fake stack that reaches the thread's first
// entry into Java: compiled frames, an interpreter frame and the call stub's entry frame, whose
// JavaCallWrapper holds an empty frame anchor.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "fake_code.hpp"
#include "hotspot/java_thread.hpp"
#include "hotspot/method_layout.hpp"
#include "stack_walk/signal/x64/at_call.hpp"
#include "stack_walk/signal/x64/completeness.hpp"

namespace jvmkit::walk {
namespace {

using testing::M;
hotspot::AsgctFrame F(uintptr_t method) { return hotspot::AsgctFrame{0, M(method)}; }

// 512 bytes of "code": nmethod A (root M1, C2 frame of 0x20 bytes), nmethod B (root M2, C1 frame:
// rbp pushed, then 0x10 bytes; at its call returning to B + 40 it has M5 inlined), the
// interpreter and the call stub, 128 bytes each.
class FakeCode : public testing::FakeCode {
 public:
  FakeCode() : testing::FakeCode(512) {
    call_returning_to(128 + 40);
    const jmethodID methods[] = {M(5), M(2)};
    const jint bcis[] = {3, 7};
    sites_.add(40, methods, bcis, 2);
    add_nmethod(0, M(1), 0x20, false);
    add_nmethod(128, M(2), 0x10, true).call_sites = &sites_;
    add(256, CodeKind::kInterpreter);
    add(384, CodeKind::kStub).call_stub = true;
  }

 private:
  CallSites sites_;
};

// The shared stack (fake_code.hpp), entered by the call stub: the entry frame's JavaCallWrapper
// (6 words below its rbp, words[40]) at words[50], whose saved anchor (sp, fp, pc at offsets 0, 8,
// 16) is empty.
struct FakeStack : testing::FakeStack {
  explicit FakeStack(const FakeCode& code) : testing::FakeStack(code) { words[34] = addr(50); }
};

class X64Completeness : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    hotspot::JavaThreadLayout layout;
    layout.wrapper_anchor_sp = 0;
    layout.wrapper_anchor_fp = 8;
    layout.wrapper_anchor_pc = 16;
    hotspot::publish_java_thread_layout_for_testing(layout);
    hotspot::publish_method_layout_for_testing(hotspot::MethodLayout{});  // no interpreter frame is read
  }

  Completeness prove(const std::vector<hotspot::AsgctFrame>& trace, PhysicalOut* walked = nullptr) {
    const CodeSnapshot snapshot = code_.snapshot();
    return prove_complete(snapshot, Regs{code_.at(60), stack_.addr(0), 0}, stack_.top(), trace.data(),
                          static_cast<jint>(trace.size()), walked);
  }

  // Below the first entry frame (words[40]), a second stack reached through its wrapper's saved
  // anchor: B stopped at its call (words[54..57], C1 frame: saved rbp words[56], return address
  // words[57]) returning into the call stub, whose rbp (words[60]) holds a wrapper (words[61])
  // with an empty anchor: the thread's first entry.
  void lay_out_frames_below_the_entry() {
    stack_.words[50] = stack_.addr(54);     // the saved anchor's sp
    stack_.words[52] = code_.at(128 + 40);  // its pc: B at its call
    stack_.words[56] = stack_.addr(60);     // B's saved rbp: the stub's
    stack_.words[57] = code_.at(384 + 20);  // B returns into the call stub
    stack_.words[54] = stack_.addr(61);     // the stub's JavaCallWrapper (rbp - 6 words)
    stack_.words[61] = 0;                   // its saved anchor: empty
  }

  FakeCode code_;
  FakeStack stack_{code_};
};

// The whole stack: A's frames (M7 inlined into M1), B's call (M5 inlined into M2), the
// interpreter frame (any method: its Method* is not read).
TEST_F(X64Completeness, AWholeTraceIsProven) {
  EXPECT_EQ(prove({F(7), F(1), F(5), F(2), F(9)}), Completeness::kProven);
  EXPECT_EQ(prove({F(1), F(5), F(2), F(9)}), Completeness::kProven);  // A interrupted outside M7
}

TEST_F(X64Completeness, ATraceThatStopsAboveFramesTheWalkFindsIsCutShort) {
  EXPECT_EQ(prove({F(7), F(1), F(5), F(2)}), Completeness::kCutShort);  // without the interpreter frame
  EXPECT_EQ(prove({F(7), F(1)}), Completeness::kCutShort);              // A's frames alone
}

TEST_F(X64Completeness, ATraceWithOtherMethodsOrMoreFramesIsNotProven) {
  EXPECT_EQ(prove({F(7), F(1), F(6), F(2), F(9)}), Completeness::kCutShort);        // not B's call
  EXPECT_EQ(prove({F(7), F(1), F(5), F(2), F(9), F(8)}), Completeness::kCutShort);  // beyond the entry
  EXPECT_EQ(prove({F(7), F(8), F(5), F(2), F(9)}), Completeness::kCutShort);        // A's root missing
}

// M1 inlined into itself: the first M1 is not the end of A's frames; the second one is.
TEST_F(X64Completeness, TheTopFramesMayHoldTheirRootMethodTwice) {
  EXPECT_EQ(prove({F(1), F(1), F(5), F(2), F(9)}), Completeness::kProven);
}

TEST_F(X64Completeness, AFrameTheWalkCannotPassLeavesTheTraceUnproven) {
  stack_.words[21] = code_.at(128 + 90);  // the interpreter frame returns into B after no call
  EXPECT_EQ(prove({F(7), F(1), F(5), F(2), F(9)}), Completeness::kCutShort);  // deoptimized below
  stack_.words[21] = 0x1000;                                                  // into code nobody knows
  EXPECT_EQ(prove({F(7), F(1), F(5), F(2), F(9)}), Completeness::kUnproven);
  stack_.words[21] = code_.at(384 + 20);
  stack_.words[34] = 0;  // no JavaCallWrapper
  EXPECT_EQ(prove({F(7), F(1), F(5), F(2), F(9)}), Completeness::kUnproven);
}

TEST_F(X64Completeness, AnEntryFrameWithJavaFramesBelowIsCrossed) {
  // The wrapper's saved anchor names a frame of A again, further up the stack (words[54..]).
  stack_.words[50] = stack_.addr(54);     // anchor sp
  stack_.words[52] = code_.at(20);        // anchor pc: in A, whose frame is whole
  stack_.words[58] = code_.at(128 + 40);  // A's return address there: into B at its call
  stack_.words[61] = 0;                   // B's saved rbp
  stack_.words[62] = 0x1000;              // B returns into code nobody knows
  EXPECT_EQ(prove({F(7), F(1), F(5), F(2), F(9), F(1), F(5), F(2)}), Completeness::kUnproven);
  EXPECT_EQ(prove({F(7), F(1), F(5), F(2), F(9)}), Completeness::kCutShort);  // the frames below missing
}

// AsyncGetCallTrace stops at some entry frames: the proof says where, and the frames below are
// walked from the wrapper's saved anchor, each at its call, down to the first entry.
TEST_F(X64Completeness, ATraceCutAtAnEntryFrameIsCompletedFromItsSavedAnchor) {
  lay_out_frames_below_the_entry();
  PhysicalFrame physical[kMaxPhysicalFrames];
  PhysicalOut walked{physical, kMaxPhysicalFrames};
  std::vector<hotspot::AsgctFrame> trace = {F(7), F(1), F(5), F(2), F(9)};
  ASSERT_EQ(prove(trace, &walked), Completeness::kCutShort);
  ASSERT_TRUE(walked.resumable);
  EXPECT_EQ(walked.resume.pc, code_.at(128 + 40));
  EXPECT_EQ(walked.resume.sp, stack_.addr(54));
  EXPECT_EQ(walked.resume_physical, 3);  // A, B and the interpreter frame above the entry
  trace.resize(16);
  jint n = 5;
  const CodeSnapshot snapshot = code_.snapshot();
  EXPECT_EQ(complete_below_entry(snapshot, stack_.top(), trace.data(), &n, 16, &walked), Completeness::kProven);
  ASSERT_EQ(n, 7);
  EXPECT_EQ(trace[5].method_id, M(5));  // B's call record: M5 at bci 3 inlined into M2 at bci 7
  EXPECT_EQ(trace[5].lineno, 3);
  EXPECT_EQ(trace[6].method_id, M(2));
  EXPECT_EQ(trace[6].lineno, 7);
  EXPECT_EQ(walked.count, 4);
}

TEST_F(X64Completeness, ATraceCutElsewhereIsNotCompleted) {
  lay_out_frames_below_the_entry();
  PhysicalFrame physical[kMaxPhysicalFrames];
  PhysicalOut walked{physical, kMaxPhysicalFrames};
  EXPECT_EQ(prove({F(7), F(1), F(5), F(2)}, &walked), Completeness::kCutShort);  // above the entry
  EXPECT_FALSE(walked.resumable);
  EXPECT_EQ(prove({F(7), F(1), F(6), F(2), F(9)}, &walked), Completeness::kCutShort);  // other methods
  EXPECT_FALSE(walked.resumable);
  // Below the entry B returns into code nobody knows: the frames found are added, unproven.
  stack_.words[57] = 0x1000;
  std::vector<hotspot::AsgctFrame> trace = {F(7), F(1), F(5), F(2), F(9)};
  ASSERT_EQ(prove(trace, &walked), Completeness::kCutShort);
  ASSERT_TRUE(walked.resumable);
  trace.resize(16);
  jint n = 5;
  const CodeSnapshot snapshot = code_.snapshot();
  EXPECT_EQ(complete_below_entry(snapshot, stack_.top(), trace.data(), &n, 16, &walked), Completeness::kUnproven);
  EXPECT_EQ(n, 7);
  // A saved anchor whose frame cannot be described (no call record at its pc): nothing is added.
  stack_.words[52] = code_.at(20);
  ASSERT_EQ(prove({F(7), F(1), F(5), F(2), F(9)}, &walked), Completeness::kCutShort);
  n = 5;
  EXPECT_EQ(complete_below_entry(snapshot, stack_.top(), trace.data(), &n, 16, &walked), Completeness::kCutShort);
  EXPECT_EQ(n, 5);
}

}  // namespace
}  // namespace jvmkit::walk
