#include "jfr/buffer.hpp"

#include <gtest/gtest.h>

#include <string>

namespace jvmkit::jfr {
namespace {

std::string hex(const std::string& bytes) {
  std::string out;
  char b[4];
  for (unsigned char c : bytes) {
    std::snprintf(b, sizeof(b), "%02x ", c);
    out += b;
  }
  if (!out.empty()) out.pop_back();
  return out;
}

std::string varint_of(uint64_t v) {
  Buffer b;
  b.varint(v);
  EXPECT_EQ(b.size(), Buffer::varint_size(v));
  return hex(b.bytes());
}

// The values are those of the JDK's reader (RecordingInput.readLong): 7 bits a byte, least
// significant first, and a ninth byte of 8 bits.
TEST(JfrBuffer, VarintsAreSevenBitGroupsLeastSignificantFirst) {
  EXPECT_EQ(varint_of(0), "00");
  EXPECT_EQ(varint_of(1), "01");
  EXPECT_EQ(varint_of(127), "7f");
  EXPECT_EQ(varint_of(128), "80 01");
  EXPECT_EQ(varint_of(300), "ac 02");
  EXPECT_EQ(varint_of(16383), "ff 7f");
  EXPECT_EQ(varint_of(16384), "80 80 01");
  EXPECT_EQ(varint_of(uint64_t{1} << 56), "80 80 80 80 80 80 80 80 01");
  EXPECT_EQ(varint_of(UINT64_MAX), "ff ff ff ff ff ff ff ff ff");
}

TEST(JfrBuffer, NegativeValuesTakeNineBytes) {
  Buffer b;
  b.varint_signed(-1);
  EXPECT_EQ(hex(b.bytes()), "ff ff ff ff ff ff ff ff ff");
}

TEST(JfrBuffer, RawIntegersAreBigEndian) {
  Buffer b;
  b.raw16(0x0102);
  b.raw32(0x03040506);
  b.raw64(0x0708090a0b0c0d0e);
  EXPECT_EQ(hex(b.bytes()), "01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e");
  b.patch_raw64(6, 0x1122334455667788);
  EXPECT_EQ(hex(b.bytes()), "01 02 03 04 05 06 11 22 33 44 55 66 77 88");
}

TEST(JfrBuffer, StringsCarryTheirEncoding) {
  Buffer b;
  b.string("");
  b.null_string();
  b.string("ab");
  b.string("é");  // UTF-8 bytes, counted as bytes
  EXPECT_EQ(hex(b.bytes()), "01 00 03 02 61 62 03 02 c3 a9");
}

TEST(JfrBuffer, AnEventsSizeCountsItself) {
  for (size_t body : {0, 1, 125, 126, 127, 128, 16380, 16381, 16382, 16383, 20000}) {
    Buffer b;
    b.sized(std::string(body, 'x'));
    // Decode the size back and check it is the whole event.
    uint64_t size = 0;
    int shift = 0;
    size_t i = 0;
    for (;; i++) {
      const auto byte = static_cast<unsigned char>(b.bytes()[i]);
      size |= static_cast<uint64_t>(byte & 0x7f) << shift;
      shift += 7;
      if (byte < 0x80) break;
    }
    EXPECT_EQ(size, b.size()) << "body of " << body;
    EXPECT_EQ(b.size() - (i + 1), body);
  }
}

}  // namespace
}  // namespace jvmkit::jfr
