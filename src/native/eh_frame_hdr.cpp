#include "native/eh_frame_hdr.hpp"

#include <dwarf.h>
#include <gelf.h>

#include <cstring>

namespace jvmkit::native {

namespace {

// The header: version, eh_frame_ptr_enc, fde_count_enc, table_enc, eh_frame_ptr (4 bytes),
// fde_count (4 bytes); then fde_count pairs {initial_location, fde_address} of 4 bytes each.
constexpr size_t kHeaderSize = 12;
constexpr size_t kEntrySize = 8;
constexpr uint8_t kEhFramePtrEncoding = DW_EH_PE_pcrel | DW_EH_PE_sdata4;
constexpr uint8_t kCountEncoding = DW_EH_PE_udata4;
constexpr uint8_t kTableEncoding = DW_EH_PE_datarel | DW_EH_PE_sdata4;

int32_t sdata4(const uint8_t* at) {
  int32_t value;
  std::memcpy(&value, at, sizeof(value));
  return value;
}

uint32_t udata4(const uint8_t* at) {
  uint32_t value;
  std::memcpy(&value, at, sizeof(value));
  return value;
}

bool find_eh_frame_phdr(Elf* elf, GElf_Phdr* out) {
  size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return false;
  for (size_t i = 0; i < count; i++) {
    GElf_Phdr phdr;
    if (gelf_getphdr(elf, static_cast<int>(i), &phdr) != nullptr && phdr.p_type == PT_GNU_EH_FRAME) {
      *out = phdr;
      return true;
    }
  }
  return false;
}

EhFrameHdrStatus decode(const uint8_t* data, size_t size, uint64_t vaddr, EhFrameHdr* out) {
  if (size < kHeaderSize) return EhFrameHdrStatus::kUnreadable;
  if (data[0] != 1) return EhFrameHdrStatus::kBadVersion;
  if (data[1] != kEhFramePtrEncoding || data[2] != kCountEncoding || data[3] != kTableEncoding) {
    return EhFrameHdrStatus::kUnsupportedEncoding;
  }
  // pcrel: relative to the address of the field itself (4 bytes into the header).
  const uint64_t eh_frame_vaddr = vaddr + 4 + static_cast<int64_t>(sdata4(data + 4));
  const uint64_t count = udata4(data + 8);
  if (count > (size - kHeaderSize) / kEntrySize) return EhFrameHdrStatus::kTruncated;
  std::vector<uint64_t> starts, fdes;
  starts.reserve(count);
  fdes.reserve(count);
  for (uint64_t i = 0; i < count; i++) {
    // datarel: relative to the start of .eh_frame_hdr.
    const uint8_t* entry = data + kHeaderSize + i * kEntrySize;
    const uint64_t start = vaddr + static_cast<int64_t>(sdata4(entry));
    if (!starts.empty() && start < starts.back()) return EhFrameHdrStatus::kUnsorted;
    starts.push_back(start);
    fdes.push_back(vaddr + static_cast<int64_t>(sdata4(entry + 4)));
  }
  out->vaddr = vaddr;
  out->eh_frame_vaddr = eh_frame_vaddr;
  out->fde_starts = std::move(starts);
  out->fde_vaddrs = std::move(fdes);
  return EhFrameHdrStatus::kOk;
}

}  // namespace

const char* to_string(EhFrameHdrStatus status) noexcept {
  switch (status) {
    case EhFrameHdrStatus::kOk:
      return "ok";
    case EhFrameHdrStatus::kAbsent:
      return "no PT_GNU_EH_FRAME";
    case EhFrameHdrStatus::kUnreadable:
      return "unreadable .eh_frame_hdr";
    case EhFrameHdrStatus::kBadVersion:
      return ".eh_frame_hdr version is not 1";
    case EhFrameHdrStatus::kUnsupportedEncoding:
      return ".eh_frame_hdr encoding is not GNU ld's";
    case EhFrameHdrStatus::kTruncated:
      return ".eh_frame_hdr table is truncated";
    case EhFrameHdrStatus::kUnsorted:
      return ".eh_frame_hdr table is not sorted";
  }
  return "?";
}

EhFrameHdrStatus read_eh_frame_hdr(Elf* elf, EhFrameHdr* out) {
  *out = EhFrameHdr{};
  GElf_Phdr phdr;
  if (!find_eh_frame_phdr(elf, &phdr)) return EhFrameHdrStatus::kAbsent;
  Elf_Data* data = elf_getdata_rawchunk(elf, static_cast<int64_t>(phdr.p_offset), phdr.p_filesz, ELF_T_BYTE);
  if (data == nullptr || data->d_buf == nullptr) return EhFrameHdrStatus::kUnreadable;
  return decode(static_cast<const uint8_t*>(data->d_buf), data->d_size, phdr.p_vaddr, out);
}

}  // namespace jvmkit::native
