// Fake HotSpot code heaps in memory, laid out as HotSpot lays its own out (segments, a segment map
// of hops, block headers, blobs), and the layout that describes them (hotspot/code_heap.hpp), for
// unit tests without a JVM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "hotspot/code_heap.hpp"

namespace jvmkit::testing {

using hotspot::CodeHeapLayout;

constexpr int32_t kLog2Segment = 7;
constexpr size_t kSegment = size_t{1} << kLog2Segment;
constexpr uint8_t kNmethodKind = 1;
constexpr uint8_t kStubKind = 6;

struct FakeSpace {
  char* low_boundary;
  char* high_boundary;
  char* low;
  char* high;
};
struct FakeCodeHeap {
  void* vtable;
  FakeSpace memory;
  FakeSpace segmap;
  int32_t log2_segment_size;
};
struct FakeArray {
  int32_t len;
  int32_t capacity;
  FakeCodeHeap** data;
};
// HeapBlock's header as JDK 17 has it (size_t length, 16 bytes) and as JDK 25 has it (uint32_t, 8).
struct Header17 {
  uint64_t length;
  bool used;
};
struct Header25 {
  uint32_t length;
  bool used;
};
// A CodeBlob with both ways of giving its code: pointers (JDK 17) and offsets (JDK 25).
struct FakeBlob {
  void* vtable;
  int32_t size;
  int32_t frame_size;
  uintptr_t code_begin;
  uintptr_t code_end;
  int32_t code_offset;
  int32_t data_offset;
  const char* name;
  uint8_t kind;
  int32_t orig_pc_offset;  // nmethod::_orig_pc_offset (nmethods only)
};
// Where a blob's code starts (after its header, as HotSpot's code starts after the blob's header).
constexpr size_t kCodeOffset = 64;
static_assert(sizeof(FakeBlob) <= kCodeOffset);

// Names as HotSpot gives them; the nmethod names live in "libjvm's segments" (kNames' range).
inline constexpr char kNames[] = "nmethod\0native nmethod\0RuntimeStub\0";
inline const char* const kNmethodName = kNames;
inline const char* const kNativeNmethodName = kNames + 8;
inline const char* const kStubName = kNames + 23;

enum class Style { kPointersKind, kJdk25Kind, kJdk17Name };

// One code heap: RESERVED segments of memory, the first COMMITTED of them committed, and a map
// byte per reserved segment (0xFF: unused). Blocks are added one after the other, as HotSpot adds
// them at the heap's end.
class FakeHeap {
 public:
  FakeHeap(Style style, size_t reserved, size_t committed)
      : style_(style), memory_(reserved * kSegment + kSegment), map_(reserved, 0xFF) {
    char* base = memory_.data() + (kSegment - reinterpret_cast<uintptr_t>(memory_.data()) % kSegment);
    auto* map = reinterpret_cast<char*>(map_.data());
    heap_.memory = {base, base + reserved * kSegment, base, base + committed * kSegment};
    heap_.segmap = {map, map + reserved, map, map + committed};
    heap_.log2_segment_size = kLog2Segment;
  }

  size_t header_size() const { return style_ == Style::kJdk25Kind ? sizeof(Header25) : sizeof(Header17); }

  // Adds a block of SEGMENTS segments, used or free, and returns its first segment. The block holds
  // a blob whose code fills the block after the blob's header; in a free block it is the stale
  // blob of before (product builds of HotSpot leave a freed block's bytes as they were).
  size_t add_block(size_t segments, bool used, bool nmethod = true, int32_t frame_words = 6) {
    const size_t first = next_;
    next_ += segments;
    mark_used(first, next_);
    const uintptr_t block = segment_address(first);
    if (style_ == Style::kJdk25Kind) {
      const Header25 h{static_cast<uint32_t>(segments), used};
      std::memcpy(reinterpret_cast<void*>(block), &h, sizeof(h));
    } else {
      const Header17 h{segments, used};
      std::memcpy(reinterpret_cast<void*>(block), &h, sizeof(h));
    }
    {
      FakeBlob* b = blob(first);
      const size_t size = segments * kSegment - header_size();
      b->size = static_cast<int32_t>(size);
      b->frame_size = frame_words;
      b->code_begin = reinterpret_cast<uintptr_t>(b) + kCodeOffset;
      b->code_end = reinterpret_cast<uintptr_t>(b) + size;
      b->code_offset = kCodeOffset;
      b->data_offset = static_cast<int32_t>(size);
      b->name = nmethod ? kNmethodName : kStubName;
      b->kind = nmethod ? kNmethodKind : kStubKind;
    }
    return first;
  }

  // HotSpot's encoding of a block [BEG, END): 0 at its first segment, then hops 1..254, again and
  // again (CodeHeap::mark_segmap_as_used).
  void mark_used(size_t beg, size_t end) {
    map_[beg] = 0;
    uint8_t hop = 1;
    for (size_t i = beg + 1; i < end; i++) {
      map_[i] = hop;
      hop = hop == 254 ? 1 : hop + 1;
    }
  }

  uintptr_t segment_address(size_t segment) const {
    return reinterpret_cast<uintptr_t>(heap_.memory.low) + segment * kSegment;
  }
  FakeBlob* blob(size_t first) const { return reinterpret_cast<FakeBlob*>(segment_address(first) + header_size()); }
  uintptr_t code_begin(size_t first) const { return reinterpret_cast<uintptr_t>(blob(first)) + kCodeOffset; }
  // The block's last byte, the last byte of its blob's code.
  uintptr_t last_byte(size_t first, size_t segments) const { return segment_address(first + segments) - 1; }

  std::vector<uint8_t>& map() { return map_; }
  FakeCodeHeap* heap() { return &heap_; }
  uintptr_t committed_end() const { return reinterpret_cast<uintptr_t>(heap_.memory.high); }
  uintptr_t reserved_end() const { return reinterpret_cast<uintptr_t>(heap_.memory.high_boundary); }
  std::vector<char>& memory() { return memory_; }

 private:
  Style style_;
  std::vector<char> memory_;
  std::vector<uint8_t> map_;
  FakeCodeHeap heap_{};
  size_t next_ = 0;
};

// The code cache: CodeCache::_heaps points to the array, which points to the heaps.
struct FakeCache {
  std::vector<FakeCodeHeap*> heaps;
  FakeArray array{};
  FakeArray* array_pointer = &array;

  void set(std::vector<FakeHeap*> all) {
    heaps.clear();
    for (FakeHeap* h : all) heaps.push_back(h->heap());
    array = {static_cast<int32_t>(heaps.size()), static_cast<int32_t>(heaps.size()), heaps.data()};
  }
};

inline CodeHeapLayout fake_layout(const FakeCache& cache, Style style) {
  CodeHeapLayout l;
  l.heaps = reinterpret_cast<uintptr_t>(&cache.array_pointer);
  l.array_length = offsetof(FakeArray, len);
  l.array_data = offsetof(FakeArray, data);
  l.heap_memory = offsetof(FakeCodeHeap, memory);
  l.heap_segmap = offsetof(FakeCodeHeap, segmap);
  l.heap_log2_segment_size = offsetof(FakeCodeHeap, log2_segment_size);
  l.space_low = offsetof(FakeSpace, low);
  l.space_high = offsetof(FakeSpace, high);
  l.space_low_boundary = offsetof(FakeSpace, low_boundary);
  l.space_high_boundary = offsetof(FakeSpace, high_boundary);
  const bool jdk25 = style == Style::kJdk25Kind;
  l.block_header_size = jdk25 ? sizeof(Header25) : sizeof(Header17);
  l.block_length = jdk25 ? offsetof(Header25, length) : offsetof(Header17, length);
  l.block_length_size = jdk25 ? 4 : 8;
  l.block_used = jdk25 ? offsetof(Header25, used) : offsetof(Header17, used);
  l.blob_extent = sizeof(FakeBlob);
  l.blob_size = offsetof(FakeBlob, size);
  l.blob_frame_size = offsetof(FakeBlob, frame_size);
  l.code_as_offsets = jdk25;
  l.blob_code_begin = jdk25 ? offsetof(FakeBlob, code_offset) : offsetof(FakeBlob, code_begin);
  l.blob_code_end = jdk25 ? offsetof(FakeBlob, data_offset) : offsetof(FakeBlob, code_end);
  if (style == Style::kJdk17Name) {
    l.blob_name = offsetof(FakeBlob, name);
    l.name_segments[0] = {reinterpret_cast<uintptr_t>(kNames), reinterpret_cast<uintptr_t>(kNames + sizeof(kNames))};
  } else {
    l.blob_kind = offsetof(FakeBlob, kind);
    l.nmethod_kind = kNmethodKind;
  }
  l.nmethod_orig_pc_offset = offsetof(FakeBlob, orig_pc_offset);
  return l;
}

}  // namespace jvmkit::testing
