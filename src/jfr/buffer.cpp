#include "jfr/buffer.hpp"

namespace jvmkit::jfr {

void Buffer::varint(uint64_t v) {
  for (int i = 0; i < 8; i++) {
    if (v < 0x80) {
      u8(static_cast<uint8_t>(v));
      return;
    }
    u8(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  u8(static_cast<uint8_t>(v));  // the ninth byte keeps all 8 bits
}

size_t Buffer::varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80 && n < 9) {
    v >>= 7;
    n++;
  }
  return n;
}

void Buffer::raw16(uint16_t v) {
  u8(static_cast<uint8_t>(v >> 8));
  u8(static_cast<uint8_t>(v));
}

void Buffer::raw32(uint32_t v) {
  raw16(static_cast<uint16_t>(v >> 16));
  raw16(static_cast<uint16_t>(v));
}

void Buffer::raw64(uint64_t v) {
  raw32(static_cast<uint32_t>(v >> 32));
  raw32(static_cast<uint32_t>(v));
}

void Buffer::string(std::string_view utf8) {
  if (utf8.empty()) {
    u8(1);
    return;
  }
  u8(3);
  varint(utf8.size());
  bytes_.append(utf8);
}

void Buffer::utf8_bytes(std::string_view utf8) {
  u8(3);
  varint(utf8.size());
  bytes_.append(utf8);
}

void Buffer::sized(std::string_view body) {
  size_t size = body.size() + 1;
  while (varint_size(size) + body.size() != size) size = varint_size(size) + body.size();
  varint(size);
  bytes_.append(body);
}

void Buffer::patch_raw64(size_t offset, uint64_t v) {
  for (int i = 7; i >= 0; i--) {
    bytes_[offset + static_cast<size_t>(i)] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
}

}  // namespace jvmkit::jfr
