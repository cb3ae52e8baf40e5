// A minimal protocol-buffers encoder: just what profile.proto needs (varints, length-delimited
// fields, packed repeated varints, nested messages). Wire format:
// https://protobuf.dev/programming-guides/encoding/
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jvmkit::prof {

class ProtoEncoder {
 public:
  // Field with wire type 0 (int64, uint64, bool, enum). Negative int64 values take 10 bytes, as
  // the format specifies for non-zigzag types.
  void varint_field(uint32_t field, uint64_t value) {
    tag(field, 0);
    varint(value);
  }
  void int64_field(uint32_t field, int64_t value) { varint_field(field, static_cast<uint64_t>(value)); }
  // Field with wire type 2: string, bytes, or an encoded nested message.
  void bytes_field(uint32_t field, std::string_view bytes) {
    tag(field, 2);
    varint(bytes.size());
    out_.append(bytes.data(), bytes.size());
  }
  void message_field(uint32_t field, const ProtoEncoder& nested) { bytes_field(field, nested.out_); }
  // A packed repeated varint field (one length-delimited record); nothing when VALUES is empty.
  template <typename T>
  void packed_field(uint32_t field, const std::vector<T>& values) {
    if (values.empty()) return;
    ProtoEncoder body;
    for (T v : values) body.varint(static_cast<uint64_t>(v));
    bytes_field(field, body.out_);
  }

  const std::string& bytes() const { return out_; }
  void clear() { out_.clear(); }

 private:
  void tag(uint32_t field, uint32_t wire_type) { varint((static_cast<uint64_t>(field) << 3) | wire_type); }
  void varint(uint64_t v) {
    while (v >= 0x80) {
      out_ += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    out_ += static_cast<char>(v);
  }

  std::string out_;
};

}  // namespace jvmkit::prof
