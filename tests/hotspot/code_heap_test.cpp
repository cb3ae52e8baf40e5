// hotspot/code_heap.hpp without a JVM: fake code heaps in memory (tests/support/fake_code_heap.hpp).
#include "hotspot/code_heap.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <random>
#include <vector>

#include "tests/support/fake_code_heap.hpp"

namespace {

using jvmkit::hotspot::CodeBlobInfo;
using jvmkit::hotspot::CodeHeapLayout;
using namespace jvmkit::testing;  // the fake heaps

class CodeHeapTest : public ::testing::TestWithParam<Style> {
 protected:
  // A heap of 4,096 segments, 3,000 committed.
  FakeHeap heap{GetParam(), 4096, 3000};
  FakeCache cache;
  CodeHeapLayout layout;

  void SetUp() override {
    cache.set({&heap});
    layout = fake_layout(cache, GetParam());
  }

  // The blob found at PC must be the one of the block at FIRST, with code [begin, last + 1).
  void expect_blob(uintptr_t pc, size_t first, uintptr_t last) {
    const std::optional<CodeBlobInfo> found = layout.find(pc);
    ASSERT_TRUE(found.has_value()) << std::hex << pc;
    EXPECT_EQ(found->blob, reinterpret_cast<uintptr_t>(heap.blob(first)));
    EXPECT_EQ(found->code_begin, heap.code_begin(first));
    EXPECT_EQ(found->code_end, last + 1);
  }
};

TEST_P(CodeHeapTest, FindsABlockOfOneSegmentAtItsFirstAndLastCodeByte) {
  heap.add_block(3, true);
  const size_t one = heap.add_block(1, true);
  heap.add_block(2, true);
  const uintptr_t last = heap.last_byte(one, 1);
  expect_blob(heap.code_begin(one), one, last);
  expect_blob(last, one, last);
  const std::optional<CodeBlobInfo> found = layout.find(last);
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(found->is_nmethod);
  EXPECT_EQ(found->frame_size_bytes, 6u * 8u);
}

TEST_P(CodeHeapTest, FollowsHopChainsLongerThan255Segments) {
  heap.add_block(2, true);
  const size_t big = heap.add_block(700, true);
  const size_t after = heap.add_block(5, true);
  const uintptr_t last = heap.last_byte(big, 700);
  expect_blob(heap.code_begin(big), big, last);
  expect_blob(last, big, last);
  // Segments on both sides of each restart of the hops (every 254 segments).
  for (size_t s : {1u, 253u, 254u, 255u, 256u, 508u, 509u, 510u, 699u}) {
    expect_blob(heap.segment_address(big + s) + 17, big, last);
  }
  expect_blob(heap.code_begin(after), after, heap.last_byte(after, 5));
}

TEST_P(CodeHeapTest, FollowsTheExtraHopsOfJoinedFreeBlocks) {
  // HotSpot joins free blocks by turning the right block's 0 into the left block's last hop + 1;
  // a used block may later take the whole joined block over: a valid chain with extra hops.
  const size_t first = heap.add_block(300, true);
  heap.add_block(300, true);
  heap.map()[first + 300] = static_cast<uint8_t>(heap.map()[first + 299] + 1);
  Header17 h17{600, true};
  Header25 h25{600, true};
  if (GetParam() == Style::kJdk25Kind) {
    std::memcpy(reinterpret_cast<void*>(heap.segment_address(first)), &h25, sizeof(h25));
  } else {
    std::memcpy(reinterpret_cast<void*>(heap.segment_address(first)), &h17, sizeof(h17));
  }
  heap.blob(first)->size = static_cast<int32_t>(600 * kSegment - heap.header_size());
  heap.blob(first)->code_end = heap.last_byte(first, 600) + 1;
  heap.blob(first)->data_offset = heap.blob(first)->size;
  expect_blob(heap.segment_address(first + 599), first, heap.last_byte(first, 600));
  expect_blob(heap.segment_address(first + 301), first, heap.last_byte(first, 600));
}

TEST_P(CodeHeapTest, AnswersNothingInAFreeBlock) {
  heap.add_block(4, true);
  const size_t free_block = heap.add_block(400, false);
  const size_t after = heap.add_block(4, true);
  EXPECT_FALSE(layout.find(heap.segment_address(free_block) + 100).has_value());
  EXPECT_FALSE(layout.find(heap.segment_address(free_block + 399)).has_value());
  EXPECT_FALSE(layout.find(heap.last_byte(free_block, 400)).has_value());
  expect_blob(heap.code_begin(after), after, heap.last_byte(after, 4));
}

TEST_P(CodeHeapTest, AnswersNothingOutsideTheCommittedBlocks) {
  const size_t only = heap.add_block(10, true);
  const uintptr_t low = heap.segment_address(0);
  EXPECT_FALSE(layout.find(low - 1).has_value());
  EXPECT_FALSE(layout.find(0).has_value());
  // Committed but not in a block yet (0xFF), reserved but not committed, past the reservation.
  EXPECT_FALSE(layout.find(heap.segment_address(10)).has_value());
  EXPECT_FALSE(layout.find(heap.committed_end() - 1).has_value());
  EXPECT_FALSE(layout.find(heap.committed_end()).has_value());
  EXPECT_FALSE(layout.find(heap.reserved_end() + 64).has_value());
  // The block's header and its blob's header are not code.
  EXPECT_FALSE(layout.find(low).has_value());
  EXPECT_FALSE(layout.find(heap.code_begin(only) - 1).has_value());
  EXPECT_FALSE(layout.find(UINTPTR_MAX).has_value());
}

TEST_P(CodeHeapTest, TellsNmethodsFromOtherBlobs) {
  const size_t stub = heap.add_block(2, true, /*nmethod=*/false, /*frame_words=*/0);
  const size_t nm = heap.add_block(2, true);
  const std::optional<CodeBlobInfo> s = layout.find(heap.code_begin(stub));
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(s->is_nmethod);
  EXPECT_EQ(s->frame_size_bytes, 0u);
  ASSERT_TRUE(layout.find(heap.code_begin(nm)).has_value());
  EXPECT_TRUE(layout.find(heap.code_begin(nm))->is_nmethod);
  if (GetParam() == Style::kJdk17Name) {
    heap.blob(nm)->name = kNativeNmethodName;
    EXPECT_TRUE(layout.find(heap.code_begin(nm))->is_nmethod);
    // A name outside libjvm's segments is never read, whatever it says.
    static const char kElsewhere[] = "nmethod";
    heap.blob(nm)->name = kElsewhere;
    EXPECT_FALSE(layout.find(heap.code_begin(nm))->is_nmethod);
    heap.blob(nm)->name = nullptr;
    EXPECT_FALSE(layout.find(heap.code_begin(nm))->is_nmethod);
  }
}

// Where a frame being deoptimized keeps its original PC: read from an nmethod's header, never
// from another blob's, and only while it is plausible.
TEST_P(CodeHeapTest, ReadsAnNmethodsOriginalPcOffset) {
  const size_t stub = heap.add_block(2, true, /*nmethod=*/false);
  const size_t nm = heap.add_block(2, true);
  heap.blob(stub)->orig_pc_offset = 16;
  heap.blob(nm)->orig_pc_offset = 24;
  EXPECT_EQ(layout.find(heap.code_begin(stub))->orig_pc_offset, -1);
  EXPECT_EQ(layout.find(heap.code_begin(nm))->orig_pc_offset, 24);
  heap.blob(nm)->orig_pc_offset = -8;
  EXPECT_EQ(layout.find(heap.code_begin(nm))->orig_pc_offset, -1);
  heap.blob(nm)->orig_pc_offset = 24;
  layout.nmethod_orig_pc_offset = -1;  // not in the running JVM's tables
  EXPECT_EQ(layout.find(heap.code_begin(nm))->orig_pc_offset, -1);
}

TEST_P(CodeHeapTest, FindsThePcInEachOfSeveralHeaps) {
  FakeHeap second(GetParam(), 512, 512);
  FakeHeap third(GetParam(), 512, 256);
  heap.add_block(3, true);
  const size_t in_second = second.add_block(300, true);
  const size_t in_third = third.add_block(2, true, false);
  cache.set({&heap, &second, &third});
  const std::optional<CodeBlobInfo> a = layout.find(second.last_byte(in_second, 300));
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->blob, reinterpret_cast<uintptr_t>(second.blob(in_second)));
  const std::optional<CodeBlobInfo> b = layout.find(third.code_begin(in_third));
  ASSERT_TRUE(b.has_value());
  EXPECT_FALSE(b->is_nmethod);
  // An implausible number of heaps: nothing is read.
  cache.array.len = 9;
  EXPECT_FALSE(layout.find(third.code_begin(in_third)).has_value());
  cache.array.len = 0;
  EXPECT_FALSE(layout.find(third.code_begin(in_third)).has_value());
}

TEST_P(CodeHeapTest, RejectsTornHeadersAndBlobs) {
  heap.add_block(2, true);
  const size_t b = heap.add_block(8, true);
  const uintptr_t pc = heap.code_begin(b) + 5;
  ASSERT_TRUE(layout.find(pc).has_value());
  auto* used = reinterpret_cast<uint8_t*>(heap.segment_address(b) + layout.block_used);
  *used = 0x5A;  // neither true nor false
  EXPECT_FALSE(layout.find(pc).has_value());
  *used = 1;
  heap.blob(b)->size = static_cast<int32_t>(9 * kSegment);  // larger than its block
  EXPECT_FALSE(layout.find(pc).has_value());
  heap.blob(b)->size = static_cast<int32_t>(8 * kSegment - heap.header_size());
  heap.blob(b)->frame_size = -3;
  EXPECT_FALSE(layout.find(pc).has_value());
  heap.blob(b)->frame_size = -1;  // HotSpot's "no frame size"
  ASSERT_TRUE(layout.find(pc).has_value());
  EXPECT_EQ(layout.find(pc)->frame_size_bytes, 0u);
  heap.blob(b)->frame_size = (1 << 17) + 1;
  EXPECT_FALSE(layout.find(pc).has_value());
  heap.blob(b)->frame_size = 2;
  heap.blob(b)->code_begin = pc + 1;  // code that does not hold the PC
  heap.blob(b)->code_offset += 64;
  EXPECT_FALSE(layout.find(pc).has_value());
}

TEST_P(CodeHeapTest, AnswersNothingForAnOverlongChain) {
  // 20,000 segments of hop 1 back to a real block start: longer than any chain HotSpot leaves
  // (optimal + 10,000 extra hops), so it is not followed to the end.
  FakeHeap big(GetParam(), 22000, 22000);
  const size_t b = big.add_block(21000, true);
  for (size_t i = 1; i < 21000; i++) big.map()[b + i] = 1;
  cache.set({&big});
  EXPECT_TRUE(layout.find(big.segment_address(b + 5000)).has_value());
  EXPECT_FALSE(layout.find(big.segment_address(b + 20500)).has_value());
}

TEST_P(CodeHeapTest, GarbageInTheSegmentMapEndsInUnknownOrAValidBlob) {
  // Blocks as HotSpot makes them, then the map and the memory overwritten with random bytes (a
  // map read while the JIT rewrites it, at its worst): every look-up ends, and whatever it finds
  // holds the PC in its code and lies in the heap.
  for (size_t s : {1u, 7u, 300u, 2u, 600u, 40u}) heap.add_block(s, true);
  std::mt19937 random(20261207);
  const uintptr_t low = heap.segment_address(0);
  for (int round = 0; round < 4; round++) {
    for (size_t i = 0; i < 3000; i++) heap.map()[i] = static_cast<uint8_t>(random() % (round == 0 ? 256 : 4));
    if (round >= 2) {
      for (size_t i = 0; i < 3000 * kSegment; i++) reinterpret_cast<uint8_t*>(low)[i] = random() % 3;
    }
    for (size_t i = 0; i < 3000 * 4; i++) {
      const uintptr_t pc = low + i * (kSegment / 4) + random() % (kSegment / 4);
      const std::optional<CodeBlobInfo> found = layout.find(pc);
      if (!found) continue;
      EXPECT_LE(found->code_begin, pc);
      EXPECT_GT(found->code_end, pc);
      EXPECT_GE(found->blob, low);
      EXPECT_LE(found->code_end, heap.committed_end());
    }
  }
}

TEST_P(CodeHeapTest, PublishedLayoutServesFindCodeBlob) {
  const size_t b = heap.add_block(3, true);
  jvmkit::hotspot::publish_code_heap_layout_for_testing(layout);
  ASSERT_NE(jvmkit::hotspot::known_code_heap_layout(), nullptr);
  const std::optional<CodeBlobInfo> found = jvmkit::hotspot::find_code_blob(heap.code_begin(b));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->blob, reinterpret_cast<uintptr_t>(heap.blob(b)));
  EXPECT_TRUE(jvmkit::hotspot::known_code_heap_layout()->in_code_heaps(heap.code_begin(b)));
}

INSTANTIATE_TEST_SUITE_P(Layouts, CodeHeapTest,
                         ::testing::Values(Style::kPointersKind, Style::kJdk25Kind, Style::kJdk17Name),
                         [](const ::testing::TestParamInfo<Style>& info) {
                           switch (info.param) {
                             case Style::kPointersKind:
                               return "PointersAndKind";
                             case Style::kJdk25Kind:
                               return "Jdk25OffsetsAndKind";
                             default:
                               return "Jdk17PointersAndName";
                           }
                         });

}  // namespace
