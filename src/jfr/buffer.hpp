// Buffer: the bytes of a Flight Recorder file as the JDK's reader expects them.
//
// The format mixes two integer encodings:
//   raw       big-endian, fixed size: the chunk header's fields, float and double values
//   varint    the "compressed integers" of every other integer: 7 bits a byte, least significant
//             group first, the high bit set on every byte but the last; the ninth byte, if it is
//             reached, carries 8 bits. A negative value takes nine bytes.
// Strings carry an encoding byte: 0 null, 1 empty, 3 UTF-8 bytes (preceded by their count).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace jvmkit::jfr {

class Buffer {
 public:
  void u8(uint8_t v) { bytes_.push_back(static_cast<char>(v)); }
  void boolean(bool v) { u8(v ? 1 : 0); }
  void varint(uint64_t v);
  // A signed value as JFR writes it: the two's complement bits as an unsigned varint.
  void varint_signed(int64_t v) { varint(static_cast<uint64_t>(v)); }
  // A value of an int field, as HotSpot writes it: the 32 bits of its two's complement, so that
  // -1 takes five bytes, not nine. Readers that decode ints with a 32-bit varint reader (async-
  // profiler's converter) know no ninth byte: a nine-byte int makes them lose their place.
  void varint_int(int32_t v) { varint(static_cast<uint32_t>(v)); }
  void raw16(uint16_t v);
  void raw32(uint32_t v);
  void raw64(uint64_t v);
  // A UTF-8 string (encoding 3), or the empty string (encoding 1).
  void string(std::string_view utf8);
  // A UTF-8 string in encoding 3 also when it is empty: the entries of the symbol pool, which
  // async-profiler's converter accepts in that encoding only (HotSpot writes symbols so).
  void utf8_bytes(std::string_view utf8);
  void null_string() { u8(0); }
  void append(std::string_view bytes) { bytes_.append(bytes); }
  // An event: its size (which counts the size's own bytes) as a varint, then BODY.
  void sized(std::string_view body);

  // Writes V as 8 raw bytes at OFFSET (which must be inside the buffer): a header field known only
  // at the end.
  void patch_raw64(size_t offset, uint64_t v);

  size_t size() const { return bytes_.size(); }
  const std::string& bytes() const { return bytes_; }
  std::string take() { return std::move(bytes_); }
  void clear() { bytes_.clear(); }

  // The bytes V takes as a varint (1 to 9).
  static size_t varint_size(uint64_t v);

 private:
  std::string bytes_;
};

}  // namespace jvmkit::jfr
