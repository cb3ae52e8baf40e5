// The completeness proof, fed a fake code cache and a fake stack that reaches the thread's first
// entry into Java: compiled frames, an interpreter frame and the call stub's entry frame, whose
// JavaCallWrapper holds an empty frame anchor.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "hotspot/java_thread.hpp"
#include "stack_walk/signal/x64/completeness.hpp"

namespace jvmkit::walk {
namespace {

jmethodID M(uintptr_t v) { return reinterpret_cast<jmethodID>(v); }
hotspot::AsgctFrame F(uintptr_t method) { return hotspot::AsgctFrame{0, M(method)}; }

// 512 bytes of "code": nmethod A (root M1, C2 frame of 0x20 bytes), nmethod B (root M2, C1 frame:
// rbp pushed, then 0x10 bytes; at its call returning to B + 40 it has M5 inlined), the
// interpreter and the call stub, 128 bytes each.
class FakeCode {
 public:
  FakeCode() : bytes_(512, 0x90) {
    bytes_[128 + 35] = 0xE8;  // call rel32, returning to B + 40
    const jmethodID methods[] = {M(5), M(2)};
    const jint bcis[] = {3, 7};
    sites_.add(40, methods, bcis, 2);
    ranges_.push_back(nmethod(0, M(1), 0x20, false));
    ranges_.push_back(nmethod(128, M(2), 0x10, true));
    ranges_.back().call_sites = &sites_;
    ranges_.push_back(other(256, CodeKind::kInterpreter));
    ranges_.push_back(other(384, CodeKind::kStub));
    ranges_.back().call_stub = true;
  }
  uintptr_t at(size_t offset) const { return reinterpret_cast<uintptr_t>(bytes_.data()) + offset; }
  CodeSnapshot snapshot() const { return CodeSnapshot(ranges_); }

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
  CallSites sites_;
  std::vector<CodeRange> ranges_;
};

// A's frame at the lowest address, called from B at its call, B called from an interpreter frame,
// which the call stub entered: the entry frame's rbp is words[40], its JavaCallWrapper (6 words
// below that rbp) at words[50], whose saved anchor (sp, fp, pc at offsets 0, 8, 16) is empty.
struct FakeStack {
  uintptr_t words[64] = {};
  uintptr_t addr(int i) const { return reinterpret_cast<uintptr_t>(&words[i]); }
  uintptr_t top() const { return addr(64); }

  explicit FakeStack(const FakeCode& code) {
    words[4] = code.at(128 + 40);   // A's return address (sp + 0x20): into B, after its call
    words[7] = addr(20);            // B's saved rbp (C1: just below its return address)
    words[8] = code.at(256 + 10);   // B's return address: into the interpreter
    words[19] = addr(22);           // the interpreter frame's sender SP (rbp - 8)
    words[20] = addr(40);           // its caller's rbp: the entry frame's
    words[21] = code.at(384 + 20);  // its return address (rbp + 8): into the call stub
    words[34] = addr(50);           // the entry frame's JavaCallWrapper*
  }
};

class X64Completeness : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    hotspot::JavaThreadLayout layout;
    layout.wrapper_anchor_sp = 0;
    layout.wrapper_anchor_fp = 8;
    layout.wrapper_anchor_pc = 16;
    hotspot::publish_java_thread_layout_for_testing(layout);
  }

  Completeness prove(const std::vector<hotspot::AsgctFrame>& trace) {
    const CodeSnapshot snapshot = code_.snapshot();
    return prove_complete(snapshot, Regs{code_.at(60), stack_.addr(0), 0}, stack_.top(), trace.data(),
                          static_cast<jint>(trace.size()));
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

}  // namespace
}  // namespace jvmkit::walk
