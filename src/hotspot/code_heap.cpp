#include "hotspot/code_heap.hpp"

#include <elf.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <optional>

#include "hotspot/vm_structs.hpp"

namespace jvmkit::hotspot {

namespace {

std::mutex g_learn_mutex;
constinit std::atomic<const CodeHeapLayout*> g_known{nullptr};

// HotSpot's segment map: 0 marks a block's first segment, 0xFF a segment no block holds yet, any
// other value how many segments to go back (at most 0xFE in one hop).
constexpr uint8_t kBlockStart = 0;
constexpr uint8_t kUnusedSegment = 0xFF;
constexpr uintptr_t kLongestHop = 0xFE;
constexpr int32_t kNoFrameSize = -1;

template <typename T>
JVMKIT_SIGNAL_SAFE T load(uintptr_t address) noexcept {
  T value;
  std::memcpy(&value, reinterpret_cast<const void*>(address), sizeof(value));
  return value;
}

// An unsigned field of SIZE bytes (1, 2, 4 or 8) at ADDRESS.
JVMKIT_SIGNAL_SAFE uint64_t load_unsigned(uintptr_t address, uint32_t size) noexcept {
  switch (size) {
    case 1:
      return load<uint8_t>(address);
    case 2:
      return load<uint16_t>(address);
    case 4:
      return load<uint32_t>(address);
    default:
      return load<uint64_t>(address);
  }
}

}  // namespace

// ---- Look-up (signal context) ----

bool CodeHeapLayout::in_code_heaps(uintptr_t pc) const noexcept { return heap_holding(pc) != 0; }

std::optional<CodeBlobInfo> CodeHeapLayout::find(uintptr_t pc) const noexcept {
  const uintptr_t heap = heap_holding(pc);
  if (heap == 0) return std::nullopt;
  return find_in_heap(heap, pc);
}

uintptr_t CodeHeapLayout::heap_holding(uintptr_t pc) const noexcept {
  // CodeCache::_heaps is filled while the VM starts and not changed afterwards; it is read live
  // (a layout learnt in Agent_OnLoad may see it empty).
  const auto array = load<uintptr_t>(heaps);
  if (array == 0) return 0;
  const auto count = load<int32_t>(array + array_length);
  const auto data = load<uintptr_t>(array + array_data);
  if (count < 1 || count > kMaxHeaps || data == 0) return 0;
  for (int32_t i = 0; i < count; i++) {
    const auto heap = load<uintptr_t>(data + static_cast<uintptr_t>(i) * sizeof(uintptr_t));
    if (heap == 0) continue;
    const auto low = load<uintptr_t>(heap + heap_memory + space_low);
    const auto high = load<uintptr_t>(heap + heap_memory + space_high);
    if (pc >= low && pc < high) return heap;
  }
  return 0;
}

std::optional<CodeBlobInfo> CodeHeapLayout::find_in_heap(uintptr_t heap, uintptr_t pc) const noexcept {
  const auto low = load<uintptr_t>(heap + heap_memory + space_low);
  const auto high = load<uintptr_t>(heap + heap_memory + space_high);
  const auto log2 = load<int32_t>(heap + heap_log2_segment_size);
  const auto map = load<uintptr_t>(heap + heap_segmap + space_low);
  const auto map_high = load<uintptr_t>(heap + heap_segmap + space_high);
  if (pc < low || pc >= high || log2 < kMinLog2Segment || log2 > kMaxLog2Segment || map == 0 || map_high <= map) {
    return std::nullopt;
  }
  uintptr_t segment = (pc - low) >> log2;
  if (segment >= map_high - map) return std::nullopt;  // outside the committed part of the map
  // Back to the block's first segment. Each hop must stay inside the map and the chain must not be
  // longer than a well-formed one (see kMaxExtraHops): a map changed under our feet ends here.
  const uintptr_t max_hops = segment / kLongestHop + 1 + kMaxExtraHops;
  uint8_t hop = load<uint8_t>(map + segment);
  for (uintptr_t hops = 0; hop != kBlockStart; hops++) {
    if (hop == kUnusedSegment || hop > segment || hops >= max_hops) return std::nullopt;
    segment -= hop;
    hop = load<uint8_t>(map + segment);
  }
  const uintptr_t block = low + (segment << log2);
  if (block_header_size > high - block) return std::nullopt;
  // A used block's flag is true (1); a free block's false. Any other byte is not a header.
  if (load<uint8_t>(block + block_used) != 1) return std::nullopt;
  const uint64_t length = load_unsigned(block + block_length, block_length_size);
  if (length == 0 || length > ((high - block) >> log2)) return std::nullopt;
  const uintptr_t block_end = block + (static_cast<uintptr_t>(length) << log2);
  if (pc >= block_end) return std::nullopt;
  return blob_at(block + block_header_size, block_end, pc);
}

std::optional<CodeBlobInfo> CodeHeapLayout::blob_at(uintptr_t blob, uintptr_t block_end, uintptr_t pc) const noexcept {
  if (blob >= block_end || blob_extent > block_end - blob) return std::nullopt;
  const auto size = load<int32_t>(blob + blob_size);
  if (size <= 0 || static_cast<uintptr_t>(size) > block_end - blob) return std::nullopt;
  CodeBlobInfo info;
  info.blob = blob;
  if (code_as_offsets) {
    const auto begin = load<int32_t>(blob + blob_code_begin);
    const auto end = load<int32_t>(blob + blob_code_end);
    if (begin <= 0 || end < begin) return std::nullopt;
    info.code_begin = blob + static_cast<uintptr_t>(begin);
    info.code_end = blob + static_cast<uintptr_t>(end);
  } else {
    info.code_begin = load<uintptr_t>(blob + blob_code_begin);
    info.code_end = load<uintptr_t>(blob + blob_code_end);
  }
  // The code lies inside the blob, after its header, and holds the PC.
  if (info.code_begin <= blob || info.code_end > blob + static_cast<uintptr_t>(size) || pc < info.code_begin ||
      pc >= info.code_end) {
    return std::nullopt;
  }
  // -1 is HotSpot's "no frame size" (StubAssembler's no_frame_size: some C1 runtime stubs).
  const auto frame_words = load<int32_t>(blob + blob_frame_size);
  if (frame_words < kNoFrameSize || frame_words > kMaxFrameWords) return std::nullopt;
  info.frame_size_bytes = frame_words == kNoFrameSize ? 0 : static_cast<uint32_t>(frame_words) * sizeof(uintptr_t);
  info.is_nmethod = blob_kind >= 0 ? load<uint8_t>(blob + blob_kind) == nmethod_kind : named_nmethod(blob);
  // The field lies in the nmethod's header, before its code.
  if (info.is_nmethod && nmethod_orig_pc_offset > 0 &&
      blob + static_cast<uintptr_t>(nmethod_orig_pc_offset) + sizeof(int32_t) <= info.code_begin) {
    const auto offset = load<int32_t>(blob + static_cast<uintptr_t>(nmethod_orig_pc_offset));
    if (offset >= 0 && offset <= kMaxFrameWords * static_cast<int32_t>(sizeof(uintptr_t))) info.orig_pc_offset = offset;
  }
  return info;
}

bool CodeHeapLayout::named_nmethod(uintptr_t blob) const noexcept {
  if (blob_name < 0) return false;
  static constexpr char kNames[][16] = {"nmethod", "native nmethod"};
  const auto name = load<uintptr_t>(blob + blob_name);
  for (const char* candidate : kNames) {
    uintptr_t bytes = 0;  // with the terminating NUL
    while (candidate[bytes] != '\0') bytes++;
    bytes++;
    bool readable = false;
    for (const AddressRange& segment : name_segments) {
      if (name >= segment.begin && name < segment.end && bytes <= segment.end - name) readable = true;
    }
    if (!readable) continue;
    bool same = true;
    for (uintptr_t i = 0; i < bytes && same; i++) same = load<char>(name + i) == candidate[i];
    if (same) return true;
  }
  return false;
}

const CodeHeapLayout* known_code_heap_layout() noexcept { return g_known.load(std::memory_order_acquire); }

std::optional<CodeBlobInfo> find_code_blob(uintptr_t pc) noexcept {
  const CodeHeapLayout* layout = known_code_heap_layout();
  if (layout == nullptr) return std::nullopt;
  return layout->find(pc);
}

// ---- Learning (not signal context) ----

namespace {

// Offsets of the fields the look-up reads, each checked against the tables: present, of an
// expected width, inside its type.
class FieldReader {
 public:
  // TYPE::FIELD's offset; its width (from the field's type) must be one of WIDTHS and the field
  // must lie inside TYPE. *WIDTH (if not null) receives the width.
  intptr_t offset(const char* type, const char* field, std::initializer_list<uint64_t> widths,
                  uint64_t* width = nullptr) {
    if (!why_.empty()) return 0;
    const std::optional<intptr_t> offset = vm_struct_offset(type, field);
    const std::optional<uint64_t> size = vm_struct_field_size(type, field);
    const std::optional<uint64_t> type_size = vm_type_size(type);
    const std::string name = std::string(type) + "::" + field;
    if (!offset) return fail(name + " is not in gHotSpotVMStructs");
    if (!size) return fail(name + "'s type has no size in gHotSpotVMTypes");
    if (!type_size) return fail(std::string(type) + " has no size in gHotSpotVMTypes");
    bool expected = false;
    for (uint64_t w : widths) expected = expected || w == *size;
    if (!expected) return fail(name + " has an unexpected size (" + std::to_string(*size) + ")");
    if (*offset < 0 || static_cast<uint64_t>(*offset) + *size > *type_size)
      return fail(name + " lies outside its type");
    if (width != nullptr) *width = *size;
    return *offset;
  }
  // Whether TYPE::FIELD is in the table (for fields that differ between JDKs).
  static bool has(const char* type, const char* field) { return vm_struct_offset(type, field).has_value(); }

  intptr_t fail(const std::string& why) {
    if (why_.empty()) why_ = why;
    return 0;
  }
  const std::string& why() const { return why_; }

 private:
  std::string why_;
};

int find_libjvm_segments(struct dl_phdr_info* info, size_t, void* data) {
  const char* name = info->dlpi_name;
  if (name == nullptr || std::strstr(name, "/libjvm.so") == nullptr) return 0;
  auto* segments = static_cast<std::array<AddressRange, 8>*>(data);
  size_t n = 0;
  for (size_t i = 0; i < info->dlpi_phnum && n < segments->size(); i++) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_R) == 0) continue;
    const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    (*segments)[n++] = {begin, begin + ph.p_memsz};
  }
  return 1;
}

std::optional<CodeHeapLayout> read_layout(std::string* why) {
  CodeHeapLayout l;
  FieldReader r;
  const std::optional<uintptr_t> heaps = vm_static_field_address("CodeCache", "_heaps");
  if (!heaps) r.fail("CodeCache::_heaps is not in gHotSpotVMStructs");
  l.heaps = heaps.value_or(0);
  l.array_length = r.offset("GrowableArrayBase", "_len", {4});
  l.array_data = r.offset("GrowableArray<int>", "_data", {8});

  const std::optional<uint64_t> space_size = vm_type_size("VirtualSpace");
  l.heap_memory = r.offset("CodeHeap", "_memory", {space_size.value_or(0)});
  l.heap_segmap = r.offset("CodeHeap", "_segmap", {space_size.value_or(0)});
  l.heap_log2_segment_size = r.offset("CodeHeap", "_log2_segment_size", {4});
  l.space_low = r.offset("VirtualSpace", "_low", {8});
  l.space_high = r.offset("VirtualSpace", "_high", {8});
  l.space_low_boundary = r.offset("VirtualSpace", "_low_boundary", {8});
  l.space_high_boundary = r.offset("VirtualSpace", "_high_boundary", {8});

  const std::optional<uint64_t> block_size = vm_type_size("HeapBlock");
  const std::optional<uint64_t> header_size = vm_type_size("HeapBlock::Header");
  const intptr_t header = r.offset("HeapBlock", "_header", {header_size.value_or(0)});
  uint64_t length_size = 0;
  l.block_length = header + r.offset("HeapBlock::Header", "_length", {4, 8}, &length_size);
  l.block_length_size = static_cast<uint32_t>(length_size);
  l.block_used = header + r.offset("HeapBlock::Header", "_used", {1});
  // The blob follows the header (HeapBlock::allocated_space), at a multiple of 8 bytes.
  if (!block_size || *block_size == 0 || *block_size > 64 || *block_size % 8 != 0)
    r.fail("implausible sizeof(HeapBlock)");
  l.block_header_size = static_cast<uint32_t>(block_size.value_or(0));

  uint64_t widest = 0;
  auto blob_field = [&](const char* field, std::initializer_list<uint64_t> widths) {
    uint64_t width = 0;
    const intptr_t offset = r.offset("CodeBlob", field, widths, &width);
    widest = std::max(widest, static_cast<uint64_t>(offset) + width);
    return offset;
  };
  l.blob_size = blob_field("_size", {4});
  l.blob_frame_size = blob_field("_frame_size", {4});
  // Code range: JDK 17 to 22 keep pointers; JDK 23 on offsets from the blob (code_end() is the
  // start of the data, CodeBlob::code_end in codeBlob.hpp).
  if (FieldReader::has("CodeBlob", "_code_begin")) {
    l.blob_code_begin = blob_field("_code_begin", {8});
    l.blob_code_end = blob_field("_code_end", {8});
  } else {
    l.code_as_offsets = true;
    l.blob_code_begin = blob_field("_code_offset", {4});
    l.blob_code_end = blob_field("_data_offset", {4});
  }
  if (FieldReader::has("CodeBlob", "_kind")) {
    l.blob_kind = blob_field("_kind", {1});
    const std::optional<int32_t> nmethod = vm_int_constant("CodeBlobKind::Nmethod");
    if (!nmethod || *nmethod < 0 || *nmethod > 255) r.fail("CodeBlobKind::Nmethod is not in gHotSpotVMIntConstants");
    l.nmethod_kind = static_cast<uint8_t>(nmethod.value_or(0));
  } else {
    l.blob_name = blob_field("_name", {8});
    dl_iterate_phdr(find_libjvm_segments, &l.name_segments);
    if (l.name_segments[0].end == 0) r.fail("libjvm's segments not found");
  }
  l.blob_extent = static_cast<uint32_t>(widest);
  // Optional: only the walk through a frame being deoptimized needs it.
  if (FieldReader::has("nmethod", "_orig_pc_offset"))
    l.nmethod_orig_pc_offset = r.offset("nmethod", "_orig_pc_offset", {4});
  if (!r.why().empty()) {
    if (why != nullptr) *why = r.why();
    return std::nullopt;
  }
  return l;
}

// Whether the code heaps the layout reaches exist now and look like HotSpot's: 1 to kMaxHeaps
// heaps, each with a sane segment size, a reserved range holding the committed one, and a
// committed segment map with a byte for every committed segment.
bool heaps_check_out(const CodeHeapLayout& l, std::string* why) {
  auto fail = [why](const char* what) {
    if (why != nullptr) *why = what;
    return false;
  };
  const auto array = load<uintptr_t>(l.heaps);
  if (array == 0) return fail("CodeCache::_heaps is not made yet");
  const auto count = load<int32_t>(array + l.array_length);
  if (count == 0) return fail("no code heap is made yet");
  if (count < 0 || count > CodeHeapLayout::kMaxHeaps) return fail("implausible number of code heaps");
  const auto data = load<uintptr_t>(array + l.array_data);
  if (data == 0) return fail("CodeCache::_heaps has no data");
  for (int32_t i = 0; i < count; i++) {
    const auto heap = load<uintptr_t>(data + static_cast<uintptr_t>(i) * sizeof(uintptr_t));
    if (heap == 0) return fail("a code heap is null");
    const auto log2 = load<int32_t>(heap + l.heap_log2_segment_size);
    if (log2 < CodeHeapLayout::kMinLog2Segment || log2 > CodeHeapLayout::kMaxLog2Segment) {
      return fail("implausible code heap segment size");
    }
    const auto space = [&](intptr_t vs, intptr_t field) { return load<uintptr_t>(heap + vs + field); };
    const uintptr_t lo_b = space(l.heap_memory, l.space_low_boundary), lo = space(l.heap_memory, l.space_low);
    const uintptr_t hi = space(l.heap_memory, l.space_high), hi_b = space(l.heap_memory, l.space_high_boundary);
    if (lo_b == 0 || lo_b > lo || lo >= hi || hi > hi_b) return fail("implausible code heap bounds");
    const uintptr_t map_lo = space(l.heap_segmap, l.space_low), map_hi = space(l.heap_segmap, l.space_high);
    const uintptr_t map_hi_b = space(l.heap_segmap, l.space_high_boundary);
    if (map_lo == 0 || map_lo >= map_hi || map_hi > map_hi_b || map_hi - map_lo < ((hi - lo) >> log2)) {
      return fail("implausible segment map bounds");
    }
  }
  return true;
}

}  // namespace

const CodeHeapLayout* learn_code_heap_layout(std::string* why) {
  std::lock_guard<std::mutex> lock(g_learn_mutex);
  if (const CodeHeapLayout* known = g_known.load(std::memory_order_acquire)) return known;
  std::optional<CodeHeapLayout> layout = read_layout(why);
  if (!layout || !heaps_check_out(*layout, why)) return nullptr;
  const auto* published = new CodeHeapLayout(*layout);  // kept for the process
  g_known.store(published, std::memory_order_release);
  return published;
}

void publish_code_heap_layout_for_testing(const CodeHeapLayout& layout) {
  static CodeHeapLayout published;
  published = layout;
  g_known.store(&published, std::memory_order_release);
}

void forget_code_heap_layout_for_testing() { g_known.store(nullptr, std::memory_order_release); }

}  // namespace jvmkit::hotspot
