// The physical walk and the frame-shape checks, fed a fake code cache and a fake stack.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "fake_code.hpp"
#include "stack_walk/call_sites.hpp"
#include "stack_walk/signal/x64/java_frames.hpp"
#include "stack_walk/signal/x64/physical_walk.hpp"

namespace jvmkit::walk {
namespace {

using testing::M;

// 512 bytes of "code": nmethod A (C2 frame of 0x20 bytes), nmethod B (C1 frame: rbp pushed, then
// 0x10 bytes), the interpreter, and a stub, 128 bytes each.
class FakeCode : public testing::FakeCode {
 public:
  FakeCode() : testing::FakeCode(512) {
    add_nmethod(0, M(1), 0x20, false);
    add_nmethod(128, M(2), 0x10, true);
    add(256, CodeKind::kInterpreter);
    add(384, CodeKind::kStub);
    call_returning_to(128 + 40);  // a call in B whose return address is B + 40; none before B + 80
  }
};

using testing::FakeStack;

// The caller of a runtime stub is found by the one word above the anchor that returns right after
// a call into the stub. A word left there by an earlier call into it (from a deeper frame of the
// same code) makes two: the caller is then not named, rather than named at the earlier moment.
TEST(X64Walk, AStubsCallerIsTheOneWordThatReturnsFromIt) {
  FakeCode code;
  code.call_into(40, 384);  // two calls of nmethod A into the stub
  code.call_into(80, 384);
  const CodeSnapshot snapshot = code.snapshot();
  uintptr_t words[16] = {};
  const auto addr = [&](int i) { return reinterpret_cast<uintptr_t>(&words[i]); };
  const hotspot::LastJavaFrame last{addr(0), 0, code.at(384 + 8)};
  words[6] = code.at(80);  // the stub's return address
  Regs out{};
  ASSERT_TRUE(first_java_frame(snapshot, last, addr(16), &out));
  EXPECT_EQ(out.pc, code.at(80));
  EXPECT_EQ(out.sp, addr(7));
  words[2] = code.at(40);  // an earlier call's return address, left in the stub's frame
  EXPECT_FALSE(first_java_frame(snapshot, last, addr(16), &out));
  words[2] = code.at(44);  // a word that follows no call into the stub does not count
  ASSERT_TRUE(first_java_frame(snapshot, last, addr(16), &out));
  EXPECT_EQ(out.pc, code.at(80));
}

// A thread stopped at a safepoint poll in A's body (at 60) waits in the safepoint blob (here the
// stub at 384, marked as the blob), its anchor (at words[2]) the blob's call into the VM.
struct StoppedAtBodyPoll {
  StoppedAtBodyPoll() {
    code.last().safepoint_blob = true;
    code.put(60, {0x41, 0x85, 0x02});  // test eax, [r10] in A's body
    words[10] = addr(20);              // the blob's saved rbp: A's
    words[11] = code.at(60);           // the blob's return-address slot: the poll
  }
  uintptr_t addr(int i) const { return reinterpret_cast<uintptr_t>(&words[i]); }
  hotspot::LastJavaFrame last() const { return {addr(2), 0, code.at(384 + 8)}; }

  FakeCode code;
  uintptr_t words[32] = {};
};

TEST(X64Walk, AFrameStoppedAtAPollInTheBodyIsTheOneTheBlobSavedThePollFor) {
  StoppedAtBodyPoll stopped;
  FakeCode& code = stopped.code;
  uintptr_t* words = stopped.words;
  const CodeSnapshot snapshot = code.snapshot();
  const auto addr = [&](int i) { return stopped.addr(i); };
  const hotspot::LastJavaFrame last = stopped.last();
  Regs out{};
  ASSERT_TRUE(frame_at_poll(snapshot, last, code.at(60), addr(32), &out));
  EXPECT_EQ(out.pc, code.at(63));  // right after the poll, where its debug record is
  EXPECT_EQ(out.sp, addr(12));
  EXPECT_EQ(out.fp, addr(20));
  words[5] = code.at(60);  // the poll's PC twice: which slot is the frame's is not known
  EXPECT_FALSE(frame_at_poll(snapshot, last, code.at(60), addr(32), &out));
  words[5] = 0;
  EXPECT_FALSE(frame_at_poll(snapshot, last, code.at(61), addr(32), &out));  // not a poll
  EXPECT_FALSE(frame_at_poll(snapshot, last, code.at(60), addr(11), &out));  // the slot above the stack
  code.last().safepoint_blob = false;
  const CodeSnapshot not_blob = code.snapshot();
  EXPECT_FALSE(frame_at_poll(not_blob, last, code.at(60), addr(32), &out));  // the anchor in another stub
}

// HotSpot describes a frame stopped at a poll by the record at the poll's own PC (C2 puts its loop
// polls' records there): where A has one, the frame is at the poll itself.
TEST(X64Walk, AFrameStoppedAtAPollWithItsRecordThereIsAtThePoll) {
  StoppedAtBodyPoll stopped;
  FakeCode& code = stopped.code;
  CallSites sites;
  const jmethodID methods[] = {M(7), M(1)};
  const jint bcis[] = {12, 49};
  sites.add(60, methods, bcis, 2);
  code.range(0).call_sites = &sites;  // A
  const CodeSnapshot snapshot = code.snapshot();
  Regs out{};
  ASSERT_TRUE(frame_at_poll(snapshot, stopped.last(), code.at(60), stopped.addr(32), &out));
  EXPECT_EQ(out.pc, code.at(60));
  EXPECT_EQ(out.sp, stopped.addr(12));
  VirtualFrames frames;
  ASSERT_TRUE(describe_java_frame(*snapshot.find(out.pc), out, StackBounds{stopped.addr(0), stopped.addr(32)}, nullptr,
                                  Describe::kAllButInterpreted, &frames));
  ASSERT_EQ(frames.count, 2);
  EXPECT_EQ(frames.frames[0].method_id, M(7));
  EXPECT_EQ(frames.frames[1].lineno, 49);
}

// At a poll on its way out the method's frame is gone: its caller stands at its call. The blob's
// rbp is the word its call into the VM saved below the anchor, and the poll's PC is among the
// registers saved below that rbp.
TEST(X64Walk, AFrameStoppedAtAReturnPollIsItsCallerAtTheCall) {
  FakeCode code;
  code.last().safepoint_blob = true;
  code.put(60, {0x49, 0x3B, 0xA7, 0x40, 0x03, 0x00, 0x00});  // cmp rsp, [r15 + 0x340] in A
  const CodeSnapshot snapshot = code.snapshot();
  uintptr_t words[32] = {};
  const auto addr = [&](int i) { return reinterpret_cast<uintptr_t>(&words[i]); };
  const hotspot::LastJavaFrame last{addr(2), 0, code.at(384 + 8)};
  words[0] = addr(10);            // below the anchor: the VM function's saved rbp, the blob's
  words[6] = code.at(60);         // the poll's PC among the saved registers
  words[10] = addr(24);           // the blob's saved rbp: B's
  words[11] = code.at(128 + 40);  // the return address into B, at its call
  Regs out{};
  ASSERT_TRUE(frame_at_poll(snapshot, last, code.at(60), addr(32), &out));
  EXPECT_EQ(out.pc, code.at(128 + 40));
  EXPECT_EQ(out.sp, addr(12));
  EXPECT_EQ(out.fp, addr(24));
  words[11] = code.at(128 + 44);  // a return address that follows no call
  EXPECT_FALSE(frame_at_poll(snapshot, last, code.at(60), addr(32), &out));
  words[11] = code.at(128 + 40);
  words[6] = 0;  // the poll's PC not among the saved registers: rbp is not the blob's
  EXPECT_FALSE(frame_at_poll(snapshot, last, code.at(60), addr(32), &out));
  words[6] = code.at(60);
  words[0] = addr(1);  // a saved rbp below the anchor
  EXPECT_FALSE(frame_at_poll(snapshot, last, code.at(60), addr(32), &out));
}

// A thread a safepoint holds waits inside the VM, called from the safepoint blob, and its anchor
// lies in the blob: its first Java frame is the one stopped at the poll whose PC the thread saved.
TEST(X64Walk, AnAnchorInTheSafepointBlobLeadsToTheFrameAtThePoll) {
  StoppedAtBodyPoll stopped;
  const FakeCode& code = stopped.code;
  const CodeSnapshot snapshot = code.snapshot();
  const auto addr = [&](int i) { return stopped.addr(i); };
  // A JavaThread of 64 bytes: its anchor (sp, fp, pc) at 0, 8, 16, the saved exception PC at 24,
  // its JNIEnv at 48.
  const hotspot::LastJavaFrame last = stopped.last();
  uintptr_t thread[8] = {last.sp, last.fp, last.pc, code.at(60)};
  hotspot::JavaThreadLayout layout;
  layout.env_offset = 48;
  layout.anchor_sp = 0;
  layout.anchor_fp = 8;
  layout.anchor_pc = 16;
  layout.saved_exception_pc = 24;
  hotspot::publish_java_thread_layout_for_testing(layout);
  auto* env = reinterpret_cast<JNIEnv*>(&thread[6]);
  Regs out{};
  ASSERT_TRUE(anchor_frame(snapshot, env, addr(0), addr(32), &out));
  EXPECT_EQ(out.pc, code.at(63));  // right after the poll, where its debug record is
  EXPECT_EQ(out.sp, addr(12));
  EXPECT_EQ(out.fp, addr(20));
  thread[3] = 0;  // no poll saved: the blob's anchor names no Java frame
  EXPECT_FALSE(anchor_frame(snapshot, env, addr(0), addr(32), &out));
}

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

// C2's out-of-line GC barrier stubs spill live registers below the frame ("sub rsp, N") before
// their leaf call into the VM: from the call's SP, the frame's return-address slot is N higher.
TEST(X64Walk, LeafCallSpillIsTheStubsSubRspWhenItLeadsToAReturnSlot) {
  FakeCode code;
  code.put(90, {0x48, 0x83, 0xEC, 0x20});        // sub rsp, 0x20
  code.put(94, {0x4C, 0x89, 0x44, 0x24, 0x08});  // mov [rsp + 8], r8
  code.call_returning_to(110);
  const CodeSnapshot snapshot = code.snapshot();
  uintptr_t words[16] = {};
  const uintptr_t sp = reinterpret_cast<uintptr_t>(&words[0]);
  const StackBounds bounds{sp, reinterpret_cast<uintptr_t>(&words[16])};
  words[4] = code.at(128 + 40);  // a stale return address where the slot would be without the spill
  words[8] = code.at(128 + 40);  // the frame's (frame size 0x20 above SP + 0x20)
  EXPECT_EQ(leaf_call_spill(snapshot, code.range(0), bounds, code.at(110), sp), 0x20u);
  // The slot the spill points at holds no return address: no spill is claimed.
  words[8] = 0x5678;
  EXPECT_EQ(leaf_call_spill(snapshot, code.range(0), bounds, code.at(110), sp), 0u);
  // sub rsp, imm32 too.
  code.put(90, {0x48, 0x81, 0xEC, 0x10, 0x00, 0x00, 0x00});
  words[6] = code.at(128 + 40);
  EXPECT_EQ(leaf_call_spill(snapshot, code.range(0), bounds, code.at(110), sp), 0x10u);
  // No "sub rsp" before the call: a call made at the frame's own SP.
  code.put(90, {0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90});
  EXPECT_EQ(leaf_call_spill(snapshot, code.range(0), bounds, code.at(110), sp), 0u);
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
