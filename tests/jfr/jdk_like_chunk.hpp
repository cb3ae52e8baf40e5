// What the reader must read besides ChunkWriter's recordings, made by hand since no test here runs
// a JVM: a chunk as the JDK lays one out, so that the tests see the reader decode by each chunk's
// own metadata and pools rather than by the types jvmkit writes. Test code only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jfr/buffer.hpp"

namespace jvmkit::jfr::test {

// --- A chunk as the JDK writes one: other ids, more fields, other encodings ---

struct MField {
  std::string name;
  uint64_t type;
  bool pool = false;
  bool array = false;
};

struct MType {
  uint64_t id;
  std::string name;
  std::string super_type = "";
  bool simple = false;
  std::vector<MField> fields = {};
};

// A string as UTF-16 units, each a varint (encoding 4); code points past U+FFFF as surrogates.
inline void utf16_string(Buffer& out, const std::u16string& s) {
  out.u8(4);
  out.varint(s.size());
  for (char16_t c : s) out.varint(c);
}

inline void latin1_string(Buffer& out, std::string_view bytes) {
  out.u8(5);
  out.varint(bytes.size());
  out.append(bytes);
}

// The metadata event for TYPES, its string table in UTF-16 (encoding 4).
std::string metadata_event(const std::vector<MType>& types);

// A chunk laid out by hand: events and constant-pool events in any order, the metadata last.
class RawChunk {
 public:
  void event(const Buffer& body) { body_.sized(body.bytes()); }
  // A constant-pool event of POOLS pools, whose bytes (type id, count, entries...) are ENTRIES.
  void pools(size_t pools, const Buffer& entries);
  // Bytes as they are: a constant-pool event (when POOLS) or an event of any size field.
  void raw(std::string_view bytes, bool pools) {
    if (pools) last_pools_ = 68 + body_.size();
    body_.append(bytes);
  }
  std::string finish(const std::string& metadata, int64_t start_ticks, int64_t ticks_per_second);

 private:
  Buffer body_;
  uint64_t last_pools_ = 0;
};

enum : uint64_t {
  tBoolean = 4,
  tChar,
  tFloat,
  tDouble,
  tByte,
  tShort,
  tInt = 11,
  tLong,
  tString,
  tGroup = 30,
  tThread,
  tSymbol,
  tLoader,
  tClass,
  tPackage,
  tMethod,
  tFrameType,
  tFrame,
  tStack,
  tChunkHeader,
  tPair,
  tEverything = 200,
  tSample,
  tSetting,
  tNotAnEvent = 300,
};

// The types jdk_like_chunk declares: the JDK's, with fields jvmkit does not write, and test types
// of every kind of field, one of them no event.
std::vector<MType> jdk_like_types();

// A chunk of the JDK's layout: other type ids, fields jvmkit does not write, pools in two
// constant-pool events, every string encoding.
std::string jdk_like_chunk();

}  // namespace jvmkit::jfr::test
