// The walk of a virtual thread's frozen frames (signal/x64/frozen_frames.hpp), fed a fake code
// cache, stack chunk objects built in a fake heap and a fake Method* for the interpreter frames.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "fake_code.hpp"
#include "fake_method.hpp"
#include "stack_walk/signal/x64/frozen_frames.hpp"

namespace jvmkit::walk {
namespace {

using hotspot::AsgctFrame;
using testing::FakeMethod;
using testing::M;

// A frame as the tests compare it: its bci and its jmethodID's value.
using Frame = std::pair<jint, uintptr_t>;
// What every slot of the output holds until the walk writes it.
const Frame kSentinel{-77, 0x5e17};

// Chunk objects in a buffer of words that stands for the heap: StackChunk's fields at the offsets
// below, the chunk's stack 48 bytes into the object.
class FakeHeap {
 public:
  static constexpr intptr_t kParent = 16, kSize = 24, kSp = 28, kBottom = 32, kStack = 48;

  FakeHeap() : words_(1024, 0) {}
  uintptr_t lo() const { return reinterpret_cast<uintptr_t>(words_.data()); }
  uintptr_t hi() const { return lo() + 8 * words_.size(); }

  hotspot::ContinuationLayout layout() const {
    hotspot::ContinuationLayout l;
    l.parent = kParent;
    l.size = kSize;
    l.sp = kSp;
    l.bottom = kBottom;
    l.stack_offset = kStack;
    l.narrow = false;
    l.heap_lo = lo();
    l.heap_hi = hi();
    return l;
  }

  // The chunk object at heap word AT: a stack of SIZE words whose frames are words [SP, BOTTOM).
  uintptr_t chunk(size_t at, int32_t size, int32_t sp, int32_t bottom, uintptr_t parent = 0) {
    const uintptr_t c = lo() + 8 * at;
    std::memcpy(reinterpret_cast<void*>(c + kSize), &size, 4);
    std::memcpy(reinterpret_cast<void*>(c + kSp), &sp, 4);
    std::memcpy(reinterpret_cast<void*>(c + kBottom), &bottom, 4);
    std::memcpy(reinterpret_cast<void*>(c + kParent), &parent, 8);
    return c;
  }
  // Word I of CHUNK's stack.
  static uintptr_t& word(uintptr_t chunk, int i) { return *reinterpret_cast<uintptr_t*>(chunk + kStack + 8 * i); }

 private:
  std::vector<uintptr_t> words_;
};

// Code: nmethod A (root M1, C2 frame of 0x20 bytes; its call returning to A + 40 has M7 inlined
// into M1), nmethod B (root M2, C1: rbp pushed, then 0x10 bytes; a call returning to B + 40), the
// interpreter and a stub, 128 bytes each.
class X64FrozenFrames : public ::testing::Test {
 protected:
  static constexpr int kAWords = 0x20 / 8 + 1;  // A's frame and its return address
  static constexpr int kBWords = 0x10 / 8 + 2;  // B's frame, its saved rbp and its return address
  // In three_frame_chunk: the word of B's return address, and the interpreter frame's rbp.
  static constexpr int kBPcWord = 2 + kAWords - 1;
  static constexpr int kInterpreterFp = 2 + kAWords + kBWords + 9;

  X64FrozenFrames() {
    const jmethodID a_methods[] = {M(7), M(1)};
    const jint a_bcis[] = {3, 17};
    a_sites_.add(40, a_methods, a_bcis, 2);
    const jmethodID b_methods[] = {M(2)};
    const jint b_bcis[] = {5};
    b_sites_.add(40, b_methods, b_bcis, 1);
    code_.add_nmethod(0, M(1), 0x20, false).call_sites = &a_sites_;
    code_.add_nmethod(128, M(2), 0x10, true).call_sites = &b_sites_;
    code_.add(256, CodeKind::kInterpreter);
    code_.add(384, CodeKind::kStub);
  }

  uintptr_t a_pc() const { return code_.at(40); }
  uintptr_t b_pc() const { return code_.at(128 + 40); }
  uintptr_t interpreter_pc() const { return code_.at(256 + 10); }

  // A compiled frame at word SP of CHUNK's stack that returns to PC: the word below its SP. The
  // SP of its caller (FRAME words above) is returned.
  static int compiled(uintptr_t chunk, int sp, uintptr_t pc, int frame) {
    FakeHeap::word(chunk, sp - 1) = pc;
    return sp + frame;
  }
  // An interpreter frame at word SP of CHUNK at bci 7 of method_ (M41): rbp 9 words above SP,
  // relativized at SP - 2; its sender's SP and its locals at SENDER and LOCALS words from rbp (by
  // default as the chunk's oldest frame). Returns the chunk's bottom for an oldest frame (just
  // above the locals).
  int interpreted(uintptr_t chunk, int sp, uintptr_t pc, intptr_t sender = 2, intptr_t locals = 3) const {
    const int fp = sp + 9;
    FakeHeap::word(chunk, sp - 1) = pc;
    FakeHeap::word(chunk, sp - 2) = static_cast<uintptr_t>(fp - (sp - 2));
    FakeHeap::word(chunk, fp - 1) = static_cast<uintptr_t>(sender);
    FakeHeap::word(chunk, fp - 3) = method_.method();
    FakeHeap::word(chunk, fp - 7) = static_cast<uintptr_t>(locals);
    FakeHeap::word(chunk, fp - 8) = method_.bcp(7);
    return fp + static_cast<int>(locals) + 1;
  }

  // One chunk at heap word AT: A (M7 in M1), called by B (M2), called by an interpreter frame (M41).
  uintptr_t three_frame_chunk(size_t at, uintptr_t parent = 0) {
    const uintptr_t c = heap_.lo() + 8 * at;
    const int b = compiled(c, 2, a_pc(), kAWords);
    const int i = compiled(c, b, b_pc(), kBWords);
    const int bottom = interpreted(c, i, interpreter_pc());
    return heap_.chunk(at, bottom + 2, 2, bottom, parent);
  }

  // A tail chunk at heap word 200 holding A, whose parent at heap word 8 holds B and the
  // interpreter frame. Returns the tail.
  uintptr_t two_chunks() {
    const uintptr_t parent = heap_.lo() + 8 * 8;
    const int bottom = interpreted(parent, compiled(parent, 2, b_pc(), kBWords), interpreter_pc());
    heap_.chunk(8, bottom, 2, bottom);
    const uintptr_t tail = heap_.lo() + 8 * 200;
    const int a_end = compiled(tail, 2, a_pc(), kAWords);
    // A's return address is not read: the chunk ends at A's stack arguments (two words).
    FakeHeap::word(tail, a_end - 1) = 0xdead;
    return heap_.chunk(200, a_end + 2, 2, a_end + 2, parent);
  }

  // Walks from CHUNK into ROOM frames of a buffer whose slots past ROOM hold kSentinel.
  FrozenFrames walk(uintptr_t chunk, int room) {
    out_.assign(static_cast<size_t>(room) + 2, AsgctFrame{kSentinel.first, M(kSentinel.second)});
    FrozenFrames f{out_.data(), room};
    const CodeSnapshot snapshot = code_.snapshot();
    walk_frozen_frames(snapshot, heap_.layout(), FakeMethod::layout(), chunk, &f);
    return f;
  }
  // The first SLOTS slots of the output: the frames written, then sentinels.
  std::vector<Frame> frames(size_t slots) const {
    std::vector<Frame> v;
    for (size_t i = 0; i < slots; i++) v.emplace_back(out_[i].lineno, reinterpret_cast<uintptr_t>(out_[i].method_id));
    return v;
  }

  CallSites a_sites_, b_sites_;
  testing::FakeCode code_{512};
  FakeHeap heap_;
  FakeMethod method_;
  std::vector<AsgctFrame> out_;
};

// The whole stack of the chunk, innermost first: A's inlined call site (2 frames), B's, and the
// interpreter frame's method and bci read through its Method* and bytecode pointer.
const std::vector<Frame> kAll = {{3, 7}, {17, 1}, {5, 2}, {7, 41}};

TEST_F(X64FrozenFrames, OneChunkCompiledThenInterpretedInnermostFirst) {
  const FrozenFrames f = walk(three_frame_chunk(8), 8);
  EXPECT_EQ(f.count, 4);
  EXPECT_TRUE(f.whole);
  EXPECT_EQ(frames(5), (std::vector<Frame>{kAll[0], kAll[1], kAll[2], kAll[3], kSentinel}));
}

// The tail chunk holds A only; its parent (at a lower address: chunks are anywhere in the heap)
// holds B and the interpreter frame. A compiled frame ends its chunk when its caller's SP plus the
// metadata words reaches the bottom.
TEST_F(X64FrozenFrames, ChunksFollowTheirParentsInOrder) {
  const FrozenFrames f = walk(two_chunks(), 8);
  EXPECT_EQ(f.count, 4);
  EXPECT_TRUE(f.whole);
  EXPECT_EQ(frames(5), (std::vector<Frame>{kAll[0], kAll[1], kAll[2], kAll[3], kSentinel}));
}

// An interpreter frame called by compiled code: the caller's frame starts at the sender SP the
// interpreter frame keeps (past the locals it added to the caller's frame), not right above its rbp.
TEST_F(X64FrozenFrames, ACompiledCallerOfAnInterpreterFrameStartsAtItsSenderSp) {
  const uintptr_t c = heap_.lo() + 8 * 8;
  const int fp = 2 + 9;
  interpreted(c, 2, interpreter_pc(), 4, 5);  // sender SP 2 words above fp + 2, locals in B's frame
  FakeHeap::word(c, fp + 1) = b_pc();         // the interpreter frame's return address
  const int bottom = fp + 4 + kBWords + 2;    // B's frame from the sender SP, its stack arguments
  heap_.chunk(8, bottom, 2, bottom);
  const FrozenFrames f = walk(c, 8);
  EXPECT_EQ(f.count, 2);
  EXPECT_TRUE(f.whole);
  EXPECT_EQ(frames(3), (std::vector<Frame>{kAll[3], kAll[2], kSentinel}));
  // A sender SP below the frame: a walk that would go up the stack ends after the frame.
  FakeHeap::word(c, fp - 1) = static_cast<uintptr_t>(-20);
  const FrozenFrames up = walk(c, 8);
  EXPECT_EQ(up.count, 1);
  EXPECT_FALSE(up.whole);
}

// Full before the end: exactly ROOM frames, nothing written past them, and not whole; an exact
// fit is whole.
TEST_F(X64FrozenFrames, RoomTooSmallFillsItAndIsNotWhole) {
  const uintptr_t c = three_frame_chunk(8);
  for (int room : {2, 3}) {
    const FrozenFrames f = walk(c, room);
    EXPECT_EQ(f.count, room);
    EXPECT_FALSE(f.whole);
    std::vector<Frame> expected(kAll.begin(), kAll.begin() + room);
    expected.push_back(kSentinel);
    EXPECT_EQ(frames(static_cast<size_t>(room) + 1), expected) << "room " << room;
  }
  const FrozenFrames exact = walk(c, 4);
  EXPECT_EQ(exact.count, 4);
  EXPECT_TRUE(exact.whole);
  // Full at the end of the tail chunk: its frames alone, not whole.
  const FrozenFrames tail = walk(two_chunks(), 2);
  EXPECT_EQ(tail.count, 2);
  EXPECT_FALSE(tail.whole);
  EXPECT_EQ(frames(3), (std::vector<Frame>{kAll[0], kAll[1], kSentinel}));
}

// DISABLED: fails on frozen_frames.cpp as written. When the room ends inside a compiled frame's
// inlined call-site record, walk_chunk copies none of the record's frames (count 0 here, room 1):
// insert_frozen_frames then takes count < room for a walk that ended early, and puts enterSpecial's
// frames right after, instead of truncating the trace (at_call.cpp copies such records partially).
TEST_F(X64FrozenFrames, RoomEndingInsideAnInlinedRecordIsFilled) {
  const FrozenFrames f = walk(three_frame_chunk(8), 1);
  EXPECT_EQ(f.count, 1);
  EXPECT_FALSE(f.whole);
  EXPECT_EQ(frames(2), (std::vector<Frame>{kAll[0], kSentinel}));
}

// A frame the walk cannot describe ends it there: the frames above it are kept, not whole.
TEST_F(X64FrozenFrames, AnUndescribableFrameEndsTheWalk) {
  const uintptr_t c = three_frame_chunk(8);
  const std::vector<Frame> a_only = {kAll[0], kAll[1], kSentinel};
  for (uintptr_t pc : {code_.at(4096),         // no known code
                       code_.at(384 + 8),      // a stub
                       code_.at(128 + 60)}) {  // B, but no call-site record there
    FakeHeap::word(c, kBPcWord) = pc;
    const FrozenFrames f = walk(c, 8);
    EXPECT_EQ(f.count, 2);
    EXPECT_FALSE(f.whole);
    EXPECT_EQ(frames(3), a_only) << "pc " << pc;
  }
  // The first frame itself: nothing.
  FakeHeap::word(c, 1) = code_.at(44);
  const FrozenFrames none = walk(c, 8);
  EXPECT_EQ(none.count, 0);
  EXPECT_FALSE(none.whole);
}

// The interpreter frame's bytecode pointer outside its method's code: no bci, the walk ends above it.
TEST_F(X64FrozenFrames, AnInterpreterFrameWithoutABciEndsTheWalk) {
  const uintptr_t c = three_frame_chunk(8);
  FakeHeap::word(c, kInterpreterFp - 8) = method_.bcp(16);  // its code is 16 bytes
  const FrozenFrames f = walk(c, 8);
  EXPECT_EQ(f.count, 3);
  EXPECT_FALSE(f.whole);
  EXPECT_EQ(frames(4), (std::vector<Frame>{kAll[0], kAll[1], kAll[2], kSentinel}));
}

// Fields no real chunk has, or a chunk outside the heap: nothing is read from its stack.
TEST_F(X64FrozenFrames, ImplausibleChunksAreNotWalked) {
  const uintptr_t good = three_frame_chunk(8);
  struct Fields {
    int32_t size, sp, bottom;
  };
  for (const Fields& bad : {Fields{26, 25, 24},      // sp > bottom
                            Fields{0, 0, 0},         // size 0
                            Fields{20, 2, 24},       // bottom > size
                            Fields{26, -1, 24},      // sp < 0
                            Fields{2000, 2, 24}}) {  // the stack reaches past the heap
    heap_.chunk(8, bad.size, bad.sp, bad.bottom);
    const FrozenFrames f = walk(good, 8);
    EXPECT_EQ(f.count, 0) << bad.size << " " << bad.sp << " " << bad.bottom;
    EXPECT_FALSE(f.whole);
    EXPECT_EQ(frames(1), std::vector<Frame>{kSentinel});
  }
  heap_.chunk(8, 26, 2, 24);
  ASSERT_EQ(walk(good, 8).count, 4);  // the same chunk with its fields restored
  // A chunk below the heap, at its end, or unaligned.
  for (uintptr_t c : {heap_.lo() - 512, heap_.hi(), good + 4}) {
    const FrozenFrames f = walk(c, 8);
    EXPECT_EQ(f.count, 0);
    EXPECT_FALSE(f.whole);
  }
  // A valid tail whose parent is implausible: the tail's frames, not whole.
  const uintptr_t bad_parent = heap_.chunk(300, 4, 5, 4);
  const FrozenFrames tail_only = walk(three_frame_chunk(100, bad_parent), 8);
  EXPECT_EQ(tail_only.count, 4);
  EXPECT_FALSE(tail_only.whole);
  // A parent outside the heap is not the end of the chunks either.
  const FrozenFrames outside = walk(three_frame_chunk(100, heap_.hi() + 4096), 8);
  EXPECT_EQ(outside.count, 4);
  EXPECT_FALSE(outside.whole);
}

// Thawing empties a chunk (sp == bottom) without unlinking it: the walk goes on to its parent.
TEST_F(X64FrozenFrames, AnEmptyChunkLeadsToItsParent) {
  const uintptr_t parent = three_frame_chunk(8);
  const FrozenFrames f = walk(heap_.chunk(300, 4, 4, 4, parent), 8);
  EXPECT_EQ(f.count, 4);
  EXPECT_TRUE(f.whole);
  EXPECT_EQ(frames(5), (std::vector<Frame>{kAll[0], kAll[1], kAll[2], kAll[3], kSentinel}));
  // Empty and alone: whole, nothing written.
  const FrozenFrames empty = walk(heap_.chunk(400, 4, 4, 4), 8);
  EXPECT_EQ(empty.count, 0);
  EXPECT_TRUE(empty.whole);
  // A chunk that is its own parent is no continuation: the walk gives up rather than loop forever.
  const uintptr_t loop = heap_.lo() + 8 * 500;
  heap_.chunk(500, 4, 4, 4, loop);
  const FrozenFrames cycle = walk(loop, 8);
  EXPECT_EQ(cycle.count, 0);
  EXPECT_FALSE(cycle.whole);
}

}  // namespace
}  // namespace jvmkit::walk
