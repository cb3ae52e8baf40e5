// The first Java frame of a thread in HotSpot's deoptimization blob (frame_being_deoptimized),
// over fake code heaps (tests/support/fake_code_heap.hpp) and a fake stack.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "fake_code.hpp"
#include "hotspot/code_heap.hpp"
#include "stack_walk/call_sites.hpp"
#include "stack_walk/signal/x64/physical_walk.hpp"
#include "tests/support/fake_code_heap.hpp"

namespace jvmkit::walk {
namespace {

using testing::M;
namespace heaps = ::jvmkit::testing;  // the fake code heaps

// The blob's frame: kBlobWords words from the anchor's SP up to and with its return-address slot.
constexpr int kBlobWords = 12;
// Where the nmethod's frames keep their original PC, in bytes from their SP.
constexpr int32_t kOrigPcOffset = 16;
// The nmethod's call returning to kCallSite (its record) and its deoptimization handler.
constexpr uintptr_t kCallSite = 40;
constexpr uintptr_t kHandler = 200;

class DeoptFrame : public ::testing::Test {
 protected:
  void SetUp() override {
    blob_ = heap_.add_block(2, true, /*nmethod=*/false, kBlobWords);
    nmethod_ = heap_.add_block(4, true);
    heap_.blob(nmethod_)->orig_pc_offset = kOrigPcOffset;
    cache_.set({&heap_});
    hotspot::publish_code_heap_layout_for_testing(heaps::fake_layout(cache_, heaps::Style::kJdk25Kind));
    const jmethodID methods[] = {M(5), M(1)};
    const jint bcis[] = {3, 17};
    sites_.add(static_cast<uint32_t>(kCallSite), methods, bcis, 2);

    words_[kBlobWords - 2] = 0x1234;                                     // the frame's rbp, saved by the blob
    words_[kBlobWords - 1] = code(nmethod_, kHandler);                   // the blob's return address: the handler
    words_[kBlobWords + kOrigPcOffset / 8] = code(nmethod_, kCallSite);  // the original PC
  }

  void TearDown() override { hotspot::forget_code_heap_layout_for_testing(); }

  uintptr_t code(size_t block, uintptr_t offset) const { return heap_.code_begin(block) + offset; }
  uintptr_t addr(int i) const { return reinterpret_cast<uintptr_t>(&words_[i]); }
  hotspot::LastJavaFrame last() const { return {addr(0), 0, code(blob_, 30)}; }

  CodeSnapshot snapshot(bool deopt_blob = true) {
    std::vector<CodeRange> ranges(2);
    ranges[0] = range(blob_, CodeKind::kStub);
    ranges[0].deopt_blob = deopt_blob;
    ranges[1] = range(nmethod_, CodeKind::kNMethod);
    ranges[1].method = M(1);
    ranges[1].frame_size = 0x20;
    ranges[1].call_sites = &sites_;
    return CodeSnapshot(ranges);
  }

  CodeRange range(size_t block, CodeKind kind) const {
    CodeRange r{};
    r.start = heap_.code_begin(block);
    r.end = heap_.blob(block)->code_end;
    r.kind = kind;
    r.enclosing = -1;
    return r;
  }

  heaps::FakeHeap heap_{heaps::Style::kJdk25Kind, 64, 64};
  heaps::FakeCache cache_;
  size_t blob_ = 0, nmethod_ = 0;
  CallSites sites_;
  uintptr_t words_[32] = {};
};

// The frame stands at its original PC (HotSpot describes it by that call's record), with its SP
// right above the blob's return-address slot and its rbp as the blob saved it.
TEST_F(DeoptFrame, IsTheFrameAtItsOriginalPc) {
  const CodeSnapshot map = snapshot();
  Regs out{};
  ASSERT_TRUE(frame_being_deoptimized(map, last(), addr(32), &out));
  EXPECT_EQ(out.pc, code(nmethod_, kCallSite));
  EXPECT_EQ(out.sp, addr(kBlobWords));
  EXPECT_EQ(out.fp, 0x1234u);
}

TEST_F(DeoptFrame, IsNotFoundWhereAnyCheckFails) {
  const CodeSnapshot map = snapshot();
  Regs out{};
  EXPECT_FALSE(frame_being_deoptimized(snapshot(/*deopt_blob=*/false), last(), addr(32), &out));  // another stub
  EXPECT_FALSE(frame_being_deoptimized(map, last(), addr(kBlobWords), &out));  // the slot above the stack

  words_[kBlobWords + kOrigPcOffset / 8] = code(nmethod_, kCallSite + 1);  // no record at the original PC
  EXPECT_FALSE(frame_being_deoptimized(map, last(), addr(32), &out));
  words_[kBlobWords + kOrigPcOffset / 8] = code(blob_, kCallSite);  // outside the nmethod
  EXPECT_FALSE(frame_being_deoptimized(map, last(), addr(32), &out));
  words_[kBlobWords + kOrigPcOffset / 8] = code(nmethod_, kCallSite);

  words_[kBlobWords - 1] = code(blob_, 50);  // the return address is not in an nmethod (unpacking)
  EXPECT_FALSE(frame_being_deoptimized(map, last(), addr(32), &out));
  words_[kBlobWords - 1] = code(nmethod_, kHandler);

  heap_.blob(nmethod_)->orig_pc_offset = -1;  // where the original PC is kept is not known
  EXPECT_FALSE(frame_being_deoptimized(map, last(), addr(32), &out));
  heap_.blob(nmethod_)->orig_pc_offset = kOrigPcOffset;
  ASSERT_TRUE(frame_being_deoptimized(map, last(), addr(32), &out));
}

// A compiled callee whose caller is being deoptimized returns into the caller's deoptimization
// handler: the caller stands at the original PC it keeps, and the walk goes on from there.
TEST_F(DeoptFrame, ACallerBeingDeoptimizedStandsAtItsOriginalPc) {
  const size_t callee = heap_.add_block(2, true);
  cache_.set({&heap_});
  std::vector<CodeRange> ranges(2);
  ranges[0] = range(nmethod_, CodeKind::kNMethod);
  ranges[0].method = M(1);
  ranges[0].frame_size = 0x20;
  ranges[0].call_sites = &sites_;
  ranges[1] = range(callee, CodeKind::kNMethod);
  ranges[1].method = M(9);
  ranges[1].frame_size = 0x20;
  const CodeSnapshot map(ranges);
  uintptr_t stack[16] = {};
  const auto at = [&](int i) { return reinterpret_cast<uintptr_t>(&stack[i]); };
  stack[3] = 0x5678;                                         // the callee's saved rbp (C2: below its return address)
  stack[4] = code(nmethod_, kHandler);                       // its return address, patched to the caller's handler
  stack[5 + kOrigPcOffset / 8] = code(nmethod_, kCallSite);  // the caller's original PC
  const StackBounds bounds{at(0), at(16)};
  Regs caller{};
  const CodeRange* caller_range = nullptr;
  bool deoptimized = false;
  EXPECT_EQ(java_caller(map, bounds, *map.find(code(callee, 8)), Regs{code(callee, 8), at(0), 0}, &caller,
                        &caller_range, &deoptimized),
            CallerStep::kCaller);
  EXPECT_TRUE(deoptimized);
  EXPECT_EQ(caller.pc, code(nmethod_, kCallSite));
  EXPECT_EQ(caller.sp, at(5));
  EXPECT_EQ(caller.fp, 0x5678u);
  EXPECT_EQ(caller_range->method, M(1));

  stack[5 + kOrigPcOffset / 8] = code(nmethod_, kCallSite + 3);  // no record there: not walked past
  EXPECT_EQ(java_caller(map, bounds, *map.find(code(callee, 8)), Regs{code(callee, 8), at(0), 0}, &caller,
                        &caller_range, &deoptimized),
            CallerStep::kCallerUnknown);
  EXPECT_FALSE(deoptimized);
}

}  // namespace
}  // namespace jvmkit::walk
