// Which code blob of HotSpot's code cache holds a PC, read from the code heaps themselves: for a
// walker that meets compiled code before HotSpot has posted its CompiledMethodLoad (the service
// thread posts it later, while the new nmethod may already run).
//
// The look-up does what HotSpot's CodeHeap::find_blob does: the heap whose committed memory holds
// the PC, the PC's segment, the segment map's hops back to the block's first segment, the block's
// header (a free block holds no blob), the blob right after the header. Offsets come from the
// running JVM's gHotSpotVMStructs/gHotSpotVMTypes/gHotSpotVMIntConstants; a layout missing any of
// them, or whose heaps do not check out, is not published and every look-up answers "unknown".
//
// Signal context: find() and find_code_blob() only. They do plain loads of HotSpot's structures
// (memcpy into locals), bounded loops, no locks, no allocation, no other library call. Every read
// lies inside memory HotSpot never unmaps (the committed parts of the code heaps and of their
// segment maps only grow; libjvm's segments), so a map read while the JIT rewrites it can give a
// wrong chain but no fault; such a chain ends in "unknown" by the bounds below.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "base/signal_safe.hpp"

namespace jvmkit::hotspot {

// What the look-up found for a PC.
struct CodeBlobInfo {
  uintptr_t blob = 0;        // the CodeBlob's address (its header)
  bool is_nmethod = false;   // a compiled Java method (also a native method's wrapper)
  uintptr_t code_begin = 0;  // its code: the PC lies in [code_begin, code_end)
  uintptr_t code_end = 0;    //   (an nmethod's: its instructions and stubs, not its constants)
  // CodeBlob::_frame_size in bytes; 0 for a blob without a frame of its own (a method handle
  // intrinsic's nmethod) or whose frame size HotSpot left unknown (-1, some C1 runtime stubs).
  uint32_t frame_size_bytes = 0;
  // An nmethod's nmethod::_orig_pc_offset: where a frame of it that is being deoptimized keeps
  // its original PC, in bytes from the frame's SP. -1: not known (not an nmethod, or not exported).
  int32_t orig_pc_offset = -1;
};

// An address range [begin, end).
struct AddressRange {
  uintptr_t begin = 0, end = 0;
};

struct CodeHeapLayout {
  // CodeCache::_heaps: the address of the static that holds the GrowableArray<CodeHeap*>*.
  uintptr_t heaps = 0;
  intptr_t array_length = 0;  // GrowableArrayBase::_len (int)
  intptr_t array_data = 0;    // GrowableArray<int>::_data: the same place for any element type

  intptr_t heap_memory = 0;             // CodeHeap::_memory (a VirtualSpace): the blocks
  intptr_t heap_segmap = 0;             // CodeHeap::_segmap (a VirtualSpace): one byte per segment
  intptr_t heap_log2_segment_size = 0;  // CodeHeap::_log2_segment_size (int)
  intptr_t space_low = 0;               // VirtualSpace::_low and _high: the committed part
  intptr_t space_high = 0;
  intptr_t space_low_boundary = 0;   // VirtualSpace::_low_boundary and _high_boundary: the
  intptr_t space_high_boundary = 0;  //   reserved part (checked when learnt)

  uint32_t block_header_size = 0;  // sizeof(HeapBlock): the blob follows the header
  intptr_t block_length = 0;       // HeapBlock::_header + Header::_length: the block's segments
  uint32_t block_length_size = 0;  //   its width: size_t on JDK 17, uint32_t on JDK 25
  intptr_t block_used = 0;         // HeapBlock::_header + Header::_used (bool)

  uint32_t blob_extent = 0;      // bytes from the blob's address past the last field read
  intptr_t blob_size = 0;        // CodeBlob::_size (int, bytes, from the blob's address)
  intptr_t blob_frame_size = 0;  // CodeBlob::_frame_size (int, words)
  // Where the blob's code lies: two pointers (CodeBlob::_code_begin/_code_end, JDK 17 to 22), or
  // two int offsets from the blob (CodeBlob::_code_offset/_data_offset, JDK 23 on).
  bool code_as_offsets = false;
  intptr_t blob_code_begin = 0;
  intptr_t blob_code_end = 0;

  // Whether a blob is an nmethod. Where the table exports CodeBlob::_kind (JDK 23 on) that is
  // HotSpot's own test (CodeBlob::is_nmethod compares it with CodeBlobKind::Nmethod, whose value
  // the table exports too). Before that is_nmethod() is a virtual function, and nothing the table
  // exports tells the kind: the blob's name does. HotSpot names every nmethod with one of two
  // string literals of nmethod.cpp, "nmethod" and "native nmethod" (JDK 17 to 25), and no other
  // blob so (the Serviceability Agent's and async-profiler's test too). The name is compared only
  // where its pointer and the bytes compared lie in one of libjvm's loaded segments (the literals
  // do): a torn or foreign pointer is never followed.
  intptr_t blob_kind = -1;                      // CodeBlob::_kind (u1), or -1
  uint8_t nmethod_kind = 0;                     // CodeBlobKind::Nmethod
  intptr_t blob_name = -1;                      // CodeBlob::_name (const char*), used when blob_kind < 0
  intptr_t nmethod_orig_pc_offset = -1;         // nmethod::_orig_pc_offset (int), or -1 (optional)
  std::array<AddressRange, 8> name_segments{};  // libjvm's PT_LOAD segments (for blob_name)

  // SIGNAL SAFE. The blob whose code holds PC, or nothing: PC outside every heap's committed
  // memory, in a free or unused part, a map or header that does not check out (read while the JIT
  // changes it), or a blob whose code range does not contain PC (its header or data).
  JVMKIT_SIGNAL_SAFE std::optional<CodeBlobInfo> find(uintptr_t pc) const noexcept;

  // SIGNAL SAFE. Whether PC lies in the committed memory of one of the code heaps.
  JVMKIT_SIGNAL_SAFE bool in_code_heaps(uintptr_t pc) const noexcept;

  // The most hops a look-up follows beyond the fewest a block of its length needs. HotSpot joins
  // adjacent free blocks without rewriting the right one's map (one extra hop per join) and
  // rewrites the whole map after 10,000 such joins (CodeHeap::fragmentation_limit), so a
  // well-formed chain never needs more.
  static constexpr uint32_t kMaxExtraHops = 10000;
  // Plausible bounds: the number of code heaps (HotSpot makes 1 or 3), log2 of the segment size
  // (CodeCacheSegmentSize is a power of two of at least 16 and at most 1024 bytes), a frame.
  static constexpr int32_t kMaxHeaps = 8;
  static constexpr int32_t kMinLog2Segment = 4, kMaxLog2Segment = 12;
  static constexpr int32_t kMaxFrameWords = 1 << 17;  // 1 MiB

 private:
  JVMKIT_SIGNAL_SAFE uintptr_t heap_holding(uintptr_t pc) const noexcept;
  JVMKIT_SIGNAL_SAFE std::optional<CodeBlobInfo> find_in_heap(uintptr_t heap, uintptr_t pc) const noexcept;
  JVMKIT_SIGNAL_SAFE std::optional<CodeBlobInfo> blob_at(uintptr_t blob, uintptr_t block_end,
                                                         uintptr_t pc) const noexcept;
  JVMKIT_SIGNAL_SAFE bool named_nmethod(uintptr_t blob) const noexcept;
};

// Learns the layout (not signal context; libjvm must be loaded) and publishes it once every field
// is in the running JVM's tables, the sizes are plausible and the code heaps exist and check out.
// The code cache is made after Agent_OnLoad: until then this returns nullptr without latching, and
// a later call (at VMInit, in the live phase) learns it. Once published, later calls return the
// same layout. nullptr otherwise; *WHY (if not null) says why.
const CodeHeapLayout* learn_code_heap_layout(std::string* why = nullptr);

// SIGNAL SAFE. The layout once learnt, else nullptr.
JVMKIT_SIGNAL_SAFE const CodeHeapLayout* known_code_heap_layout() noexcept;

// SIGNAL SAFE. known_code_heap_layout()->find(pc), or nothing while no layout is known.
JVMKIT_SIGNAL_SAFE std::optional<CodeBlobInfo> find_code_blob(uintptr_t pc) noexcept;

// Unit tests (no JVM): publishes LAYOUT as if learnt, over fake heaps in memory, and forgets it
// again (before the fake heaps go).
void publish_code_heap_layout_for_testing(const CodeHeapLayout& layout);
void forget_code_heap_layout_for_testing();

}  // namespace jvmkit::hotspot
