// A small protobuf reader for the writer tests: the fields of a message, packed varints, and
// gunzip for the pprof writer's output.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

namespace jvmkit::prof::pprof_test {

struct Field {
  uint32_t number;
  uint64_t varint = 0;
  std::string bytes;
};

inline std::vector<Field> decode(const std::string& in) {
  std::vector<Field> out;
  size_t pos = 0;
  auto varint = [&]() {
    uint64_t v = 0;
    for (int shift = 0; pos < in.size(); shift += 7) {
      uint8_t byte = static_cast<uint8_t>(in[pos++]);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) break;
    }
    return v;
  };
  while (pos < in.size()) {
    uint64_t tag = varint();
    Field f{static_cast<uint32_t>(tag >> 3)};
    if ((tag & 7) == 0) {
      f.varint = varint();
    } else if ((tag & 7) == 2) {
      size_t len = varint();
      f.bytes = in.substr(pos, len);
      pos += len;
    } else {
      ADD_FAILURE() << "unexpected wire type " << (tag & 7);
      return out;
    }
    out.push_back(f);
  }
  return out;
}

inline std::vector<uint64_t> packed(const std::string& bytes) {
  std::vector<uint64_t> v;
  size_t pos = 0;
  while (pos < bytes.size()) {
    uint64_t x = 0;
    for (int shift = 0; pos < bytes.size(); shift += 7) {
      uint8_t byte = static_cast<uint8_t>(bytes[pos++]);
      x |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) break;
    }
    v.push_back(x);
  }
  return v;
}

inline std::string gunzip(const std::string& gz) {
  z_stream zs{};
  EXPECT_EQ(inflateInit2(&zs, 15 + 16), Z_OK);
  std::string out(1 << 20, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = static_cast<uInt>(gz.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  inflateEnd(&zs);
  return out;
}
}  // namespace jvmkit::prof::pprof_test
