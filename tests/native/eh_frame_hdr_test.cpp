// The .eh_frame_hdr table against libdw's own walk of .eh_frame (dwarf_next_cfi): the same FDE
// starts, in order; and every layout other than GNU ld's is refused.
#include "native/eh_frame_hdr.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>

#include "native/cfi_rows.hpp"

namespace jvmkit::native {
namespace {

Elf_Scn* section_named(Elf* elf, const char* name, GElf_Shdr* shdr) {
  size_t strings = 0;
  elf_getshdrstrndx(elf, &strings);
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    const char* scn_name = gelf_getshdr(scn, shdr) != nullptr ? elf_strptr(elf, strings, shdr->sh_name) : nullptr;
    if (scn_name != nullptr && std::strcmp(scn_name, name) == 0) return scn;
  }
  return nullptr;
}

// The encoding of an FDE's initial location: the 'R' entry of its CIE's augmentation data.
uint8_t fde_encoding(const Dwarf_CIE& cie) {
  const uint8_t* data = cie.augmentation_data;
  for (const char* a = cie.augmentation; *a != '\0'; a++) {
    switch (*a) {
      case 'z':
      case 'S':
        break;
      case 'L':
        data++;
        break;
      case 'P': {
        const uint8_t encoding = *data++;
        data += (encoding & 0x0f) == DW_EH_PE_udata2 ? 2 : (encoding & 0x0f) == DW_EH_PE_sdata4 ? 4 : 8;
        break;
      }
      case 'R':
        return *data;
      default:
        ADD_FAILURE() << "augmentation " << cie.augmentation;
        return DW_EH_PE_omit;
    }
  }
  return DW_EH_PE_absptr;
}

// Every FDE's initial location in .eh_frame, as libdw's dwarf_next_cfi walks it.
std::vector<uint64_t> fde_starts_by_libdw(Elf* elf) {
  GElf_Shdr shdr;
  Elf_Scn* scn = section_named(elf, ".eh_frame", &shdr);
  EXPECT_NE(scn, nullptr);
  if (scn == nullptr) return {};
  Elf_Data* data = elf_rawdata(scn, nullptr);
  const auto* ident = reinterpret_cast<const unsigned char*>(elf_getident(elf, nullptr));
  std::map<Dwarf_Off, uint8_t> encodings;  // by CIE offset
  std::vector<uint64_t> starts;
  Dwarf_Off offset = 0, next = 0;
  Dwarf_CFI_Entry entry;
  while (dwarf_next_cfi(ident, data, true, offset, &next, &entry) == 0) {
    if (dwarf_cfi_cie_p(&entry)) {
      encodings[offset] = fde_encoding(entry.cie);
    } else {
      const uint8_t encoding = encodings.at(entry.fde.CIE_pointer);
      EXPECT_EQ(encoding, DW_EH_PE_pcrel | DW_EH_PE_sdata4) << "the encoding GCC and ld use";
      int32_t relative;
      std::memcpy(&relative, entry.fde.start, sizeof(relative));
      const uint64_t field = shdr.sh_addr + (entry.fde.start - static_cast<const uint8_t*>(data->d_buf));
      starts.push_back(field + relative);
    }
    offset = next;
  }
  std::sort(starts.begin(), starts.end());
  return starts;
}

void expect_table_equals_libdw(const char* path) {
  if (access(path, R_OK) != 0) GTEST_SKIP() << path << " is not installed";
  std::string why;
  ElfImage image = ElfImage::open_file(path, &why);
  ASSERT_NE(image.elf(), nullptr) << why;
  EhFrameHdr hdr;
  ASSERT_EQ(read_eh_frame_hdr(image.elf(), &hdr), EhFrameHdrStatus::kOk);
  GElf_Shdr shdr;
  ASSERT_NE(section_named(image.elf(), ".eh_frame", &shdr), nullptr);
  EXPECT_EQ(hdr.eh_frame_vaddr, shdr.sh_addr);
  const std::vector<uint64_t> expected = fde_starts_by_libdw(image.elf());
  EXPECT_FALSE(expected.empty());
  EXPECT_EQ(hdr.fde_starts, expected);
}

TEST(EhFrameHdr, LibcTableIsEveryFdeStart) { expect_table_equals_libdw("/lib/x86_64-linux-gnu/libc.so.6"); }
TEST(EhFrameHdr, LibzTableIsEveryFdeStart) { expect_table_equals_libdw("/lib/x86_64-linux-gnu/libz.so.1"); }
TEST(EhFrameHdr, Libjvm17TableIsEveryFdeStart) {
  expect_table_equals_libdw("/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so");
}
TEST(EhFrameHdr, Libjvm25TableIsEveryFdeStart) {
  expect_table_equals_libdw("/usr/lib/jvm/temurin-25-jdk-amd64/lib/server/libjvm.so");
}
TEST(EhFrameHdr, FixtureTableIsEveryFdeStart) { expect_table_equals_libdw(JVMKIT_NATIVE_CFI_FIXTURES); }

TEST(EhFrameHdr, AnObjectWithoutTheHeaderSaysSo) {
  std::string why;
  ElfImage image = ElfImage::open_file(JVMKIT_NATIVE_CFI_FIXTURES_DEBUG_FRAME, &why);
  ASSERT_NE(image.elf(), nullptr) << why;
  EhFrameHdr hdr;
  EXPECT_EQ(read_eh_frame_hdr(image.elf(), &hdr), EhFrameHdrStatus::kAbsent);
}

// The fixture's file with one byte of its .eh_frame_hdr changed, read from memory.
EhFrameHdrStatus status_with_header_byte(size_t at, uint8_t value) {
  std::ifstream file(JVMKIT_NATIVE_CFI_FIXTURES, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::string why;
  size_t header = 0;
  {
    ElfImage image = ElfImage::from_memory(bytes, &why);
    GElf_Shdr shdr;
    if (section_named(image.elf(), ".eh_frame_hdr", &shdr) == nullptr) return EhFrameHdrStatus::kAbsent;
    header = shdr.sh_offset;
  }
  bytes.at(header + at) = value;
  ElfImage image = ElfImage::from_memory(bytes, &why);
  EhFrameHdr hdr;
  const EhFrameHdrStatus status = read_eh_frame_hdr(image.elf(), &hdr);
  if (status != EhFrameHdrStatus::kOk) {
    EXPECT_TRUE(hdr.fde_starts.empty());
  }
  return status;
}

TEST(EhFrameHdr, OnlyGnuLdsLayoutIsAccepted) {
  EXPECT_EQ(status_with_header_byte(0, 1), EhFrameHdrStatus::kOk) << "the unchanged header";
  EXPECT_EQ(status_with_header_byte(0, 2), EhFrameHdrStatus::kBadVersion);
  EXPECT_EQ(status_with_header_byte(1, DW_EH_PE_absptr), EhFrameHdrStatus::kUnsupportedEncoding);
  EXPECT_EQ(status_with_header_byte(2, DW_EH_PE_uleb128), EhFrameHdrStatus::kUnsupportedEncoding);
  EXPECT_EQ(status_with_header_byte(3, DW_EH_PE_pcrel | DW_EH_PE_sdata4), EhFrameHdrStatus::kUnsupportedEncoding);
  EXPECT_EQ(status_with_header_byte(11, 0x7f), EhFrameHdrStatus::kTruncated) << "a count of 2^31 entries";
}

}  // namespace
}  // namespace jvmkit::native
