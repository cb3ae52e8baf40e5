// The reader's state while it reads a file: the current chunk, its metadata and pools, and what
// its events resolved so far (threads, classes, methods, stacks). Internal to reader.cpp (the
// chunks and events) and reader_resolve.cpp (the constant-pool entries an event refers to).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "jfr/reader.hpp"
#include "jfr/reader_format.hpp"

namespace jvmkit::jfr::reader {

constexpr size_t kHeaderSize = 68;

inline uint64_t raw(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v = v << 8 | p[i];
  return v;
}

struct Method {
  std::string_view class_name, name, descriptor;
};

struct Stack {
  uint32_t first_frame;
  uint32_t frame_count;
  bool truncated;
};

class Reader {
 public:
  Reader(const std::string& path, const std::function<bool(const ReadEvent&)>& on_event, ReadStats* stats,
         size_t max_chunk)
      : path_(path), on_event_(on_event), stats_(stats), max_chunk_(max_chunk) {}

  Error read();

 private:
  Error read(int fd);
  Error chunk_error(const char* what, uint64_t at) const {
    return Error(path_ + ": corrupt: chunk " + std::to_string(chunk_number_) + ": " + what + " at byte " +
                 std::to_string(at));
  }
  Error system_error() const { return Error("cannot read " + path_ + ": " + std::strerror(errno)); }
  Error cut_short(uint64_t at, const std::string& claim, uint64_t end) const {
    return Error(path_ + ": cut short: chunk " + std::to_string(chunk_number_) + " at byte " + std::to_string(at) +
                 " " + claim + ", the file ends at byte " + std::to_string(end));
  }
  Error read_chunk(const uint8_t* header);
  Error read_events();
  void read_event(const Type& type, Cursor& c);

  // A failure found while resolving a pool entry: the event that needed it fails with it.
  void note(const Cursor& c) {
    if (c.failed() && bad_what_ == nullptr) {
      bad_what_ = c.what();
      bad_at_ = c.failed_at();
    }
  }

  // Corrupt times wrap around (unsigned arithmetic) rather than overflow.
  int64_t time_ns(int64_t ticks) const {
    const int64_t span = span_ns(static_cast<int64_t>(static_cast<uint64_t>(ticks) - start_ticks_));
    return static_cast<int64_t>(static_cast<uint64_t>(start_nanos_) + static_cast<uint64_t>(span));
  }
  int64_t span_ns(int64_t ticks) const;

  int64_t int_field(const Field& f, Cursor& c) {
    if (!f.array && !f.pool) {
      if (f.kind == Kind::kVarint) return static_cast<int64_t>(c.varint());
      if (f.kind == Kind::kByte) return static_cast<int8_t>(c.u8());
    }
    reader::skip_field(md_, f, c, 0);
    return 0;
  }
  uint64_t key_field(const Field& f, Cursor& c) {
    if (f.pool && !f.array) return c.varint();
    reader::skip_field(md_, f, c, 0);
    return 0;
  }
  std::string_view text_field(const Field& f, Cursor& c, Arena& arena, int depth);
  std::string_view text_value(uint32_t type, Cursor& c, Arena& arena, int depth);
  std::string_view pooled_text(uint32_t type, uint64_t key, Arena& arena, int depth);

  // The pool entries an event refers to, resolved once per chunk. Null (or "") for a key the
  // pools lack (0, mostly) and a type the reader cannot take for what the field's name says.
  static constexpr size_t kNone = SIZE_MAX;
  size_t thread(uint32_t type, uint64_t key);  // an index in threads_, kNone for none
  std::string_view class_name(uint32_t type, uint64_t key);
  const Method* method(uint32_t type, uint64_t key);
  size_t stack(uint32_t type, uint64_t key);  // an index in stacks_
  void frame(uint32_t type, Cursor& c);
  // The cursor at the value of pool entry KEY of TYPE, a composite; false when there is none.
  bool entry(uint32_t type, uint64_t key, Cursor* c) const {
    if (md_.type(type).kind != Kind::kComposite) return false;
    const size_t at = pools_.find(type, key);
    if (at == PoolIndex::kNotFound) return false;
    *c = Cursor(data_, at, size_);
    return true;
  }

  const std::string& path_;
  const std::function<bool(const ReadEvent&)>& on_event_;
  ReadStats* stats_;
  size_t max_chunk_;
  bool stopped_ = false;

  // The chunk.
  ChunkBuffer buffer_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  uint64_t chunk_at_ = 0;  // its offset in the file
  int64_t chunk_number_ = 0;
  int64_t start_nanos_ = 0;
  uint64_t start_ticks_ = 0;
  int64_t ticks_per_second_ = 0;
  Metadata md_;
  PoolIndex pools_;
  const char* bad_what_ = nullptr;
  size_t bad_at_ = 0;

  // What the chunk's events resolved so far, by key.
  Arena strings_;  // converted strings of the pool entries
  Arena scratch_;  // converted strings of the current event
  Resolved thread_keys_, class_keys_, method_keys_, stack_keys_;
  std::vector<ReadThread> threads_;
  std::vector<std::string_view> classes_;
  std::vector<Method> methods_;
  std::vector<Stack> stacks_;
  std::vector<ReadFrame> frames_;
};

}  // namespace jvmkit::jfr::reader
