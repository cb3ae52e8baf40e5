// The pieces of reader.cpp that know the format's encodings: a bounds-checked cursor, strings,
// a chunk's metadata as compact type descriptors, the walker that skips any value by them, and
// the index of a chunk's constant pools. Internal to the reader.
//
// Nothing here throws or reads outside its buffer: a read past the end (or a value the format
// does not allow) marks the cursor failed, with the offset and a reason, and makes every later
// read of it fail too, so callers check once, after a whole value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <sys/types.h>

namespace jvmkit::jfr::reader {

// Values nested deeper than this (a type that contains itself, a corrupt chain of strings
// referring to strings) are refused: the JDK's own types nest three deep.
constexpr int kMaxDepth = 16;

class Cursor {
 public:
  Cursor(const uint8_t* data, size_t pos, size_t end) : data_(data), pos_(pos < end ? pos : end), end_(end) {}

  size_t pos() const { return pos_; }
  size_t end() const { return end_; }
  size_t left() const { return end_ - pos_; }
  bool failed() const { return what_ != nullptr; }
  size_t failed_at() const { return failed_at_; }
  const char* what() const { return what_; }
  // Ends the cursor at END, if that is before its end; never before its position.
  void limit(size_t end) {
    if (end < end_) end_ = end < pos_ ? pos_ : end;
  }

  // Marks the cursor failed at AT (the first failure is kept) and empties it.
  void fail(const char* what, size_t at) {
    if (what_ == nullptr) {
      what_ = what;
      failed_at_ = at;
    }
    pos_ = end_;
  }
  void fail(const char* what) { fail(what, pos_); }

  uint8_t u8() {
    if (pos_ >= end_) {
      fail("a value runs past the end of its event");
      return 0;
    }
    return data_[pos_++];
  }

  uint64_t varint() {
    if (end_ - pos_ < 9) return varint_slow();
    // Nine bytes are there: no check per byte.
    const uint8_t* p = data_ + pos_;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
      const uint64_t b = p[i];
      v |= (b & 0x7f) << (7 * i);
      if (b < 0x80) {
        pos_ += static_cast<size_t>(i) + 1;
        return v;
      }
    }
    pos_ += 9;
    return v | uint64_t{p[8]} << 56;
  }

  void skip(uint64_t n) {
    if (n > left()) {
      fail("a value runs past the end of its event");
      return;
    }
    pos_ += n;
  }

  // N bytes in place.
  std::string_view bytes(uint64_t n) {
    if (n > left()) {
      fail("a string runs past the end of its event");
      return {};
    }
    const auto* p = reinterpret_cast<const char*>(data_ + pos_);
    pos_ += n;
    return {p, static_cast<size_t>(n)};
  }

  // A count of things that take a byte or more each: more than the bytes left is corrupt.
  uint64_t count() {
    const uint64_t n = varint();
    if (n > left()) fail("a count larger than the bytes that follow it");
    return failed() ? 0 : n;
  }

 private:
  uint64_t varint_slow();

  const uint8_t* data_;
  size_t pos_;
  size_t end_;
  const char* what_ = nullptr;
  size_t failed_at_ = 0;
};

// Memory for strings the reader converts (Latin-1 and UTF-16 to UTF-8, class names to dots):
// blocks that never move, so views into them stay valid until clear().
class Arena {
 public:
  char* alloc(size_t n);
  std::string_view copy(std::string_view s);
  void clear() {
    if (blocks_.size() > 1) release();
    next_ = blocks_.empty() ? nullptr : blocks_[0].get();
    left_ = first_size_;
  }

 private:
  void release();  // all blocks but the first

  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  size_t left_ = 0;
  size_t first_size_ = 0;
};

enum class StringRead { kNull, kText, kPoolKey };
// A string value. Encoding 2 refers to the pool of java.lang.String: kPoolKey, *KEY is its key.
// Text in UTF-8 stays in place; other encodings are converted into ARENA.
StringRead read_string(Cursor& c, Arena& arena, std::string_view* text, uint64_t* key);
void skip_string(Cursor& c);

// Maps uint64 keys to uint64 values: open addressing, for the pools' keys. Key 0 is mostly null,
// but not always (the JDK's frame type "Interpreted" is 0): it has a slot of its own.
class KeyMap {
 public:
  void clear();
  void put(uint64_t key, uint64_t value);
  const uint64_t* find(uint64_t key) const {
    if (key == 0) return has_zero_ ? &zero_ : nullptr;
    if (count_ == 0) return nullptr;
    for (size_t i = slot(key);; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return &slots_[i].value;
      if (slots_[i].key == 0) return nullptr;
    }
  }

 private:
  struct Slot {
    uint64_t key;
    uint64_t value;
  };
  size_t slot(uint64_t key) const { return static_cast<size_t>((key * 0x9e3779b97f4a7c15ull) >> shift_); }
  void grow();

  std::vector<Slot> slots_;
  size_t count_ = 0;
  size_t mask_ = 0;
  int shift_ = 64;
  bool has_zero_ = false;
  uint64_t zero_ = 0;
};

// What a chunk's events resolved, by pool type and key: a key names one entry of its type only.
// There is one type per kind of entry in every recording known, so the list is one map long.
class Resolved {
 public:
  const uint64_t* find(uint32_t type, uint64_t key) const {
    for (const auto& [t, map] : maps_)
      if (t == type) return map.find(key);
    return nullptr;
  }
  void put(uint32_t type, uint64_t key, uint64_t index);
  void clear() { maps_.clear(); }

 private:
  std::vector<std::pair<uint32_t, KeyMap>> maps_;
};

// Reads N bytes at AT of FD: the count read (less at the file's end), -1 on an error (errno).
ssize_t read_at(int fd, uint8_t* out, size_t n, uint64_t at);

// The bytes of one chunk: its memory is that of the largest chunk read so far.
class ChunkBuffer {
 public:
  // Reads the N bytes at AT of FD, as read_at.
  ssize_t load(int fd, uint64_t at, size_t n);
  const uint8_t* data() const { return bytes_.get(); }

 private:
  std::unique_ptr<uint8_t[]> bytes_;
  size_t capacity_ = 0;
};

// How a value of a type is encoded.
enum class Kind : uint8_t {
  kComposite,  // its fields, in order
  kByte,       // boolean, byte: one raw byte
  kVarint,     // char, short, int, long
  kFloat,      // 4 raw bytes
  kDouble,     // 8 raw bytes
  kString,     // java.lang.String: an encoding byte, then by encoding
  kNone,       // a type without fields that is no primitive: no value can be read
};

// The fields the reader looks at, by name; kOther for the rest.
enum class Role : uint8_t {
  kOther,
  kStartTime,
  kDuration,
  kSampledThread,
  kEventThread,
  kStackTrace,
  kObjectClass,  // objectClass, monitorClass, parkedClass
  kWeight,
  kSamples,
  kEvent,
  kId,
  kName,
  kValue,
  kOsName,
  kOsThreadId,
  kJavaName,
  kJavaThreadId,
  kTruncated,
  kFrames,
  kMethod,
  kLineNumber,
  kBytecodeIndex,
  kType,
  kDescriptor,
};

struct Field {
  uint32_t type = 0;  // index in Metadata
  Kind kind = Kind::kNone;
  Role role = Role::kOther;
  bool pool = false;
  bool array = false;
};

struct Type {
  uint64_t id = 0;
  std::string_view name;
  uint32_t first_field = 0;
  uint32_t field_count = 0;
  Kind kind = Kind::kNone;
  bool event = false;           // its super type is jdk.jfr.Event
  bool setting = false;         // jdk.ActiveSetting
  bool has_super_type = false;  // declared with any superType (events, annotations)
};

class Metadata {
 public:
  static constexpr uint32_t kNoType = UINT32_MAX;

  // Parses the metadata event EVENT (its size, id 0, ..., the string table, the element tree);
  // keeps a copy of it, which the names point into. On failure, false with *FAILED_AT the offset
  // in EVENT and *WHAT the reason.
  bool parse(std::string_view event, size_t* failed_at, const char** what);
  // Whether EVENT declares the types this was parsed from: its bytes from the metadata id on are
  // the same (its time differs from chunk to chunk).
  bool parsed_from(std::string_view event) const;

  uint32_t find(uint64_t id) const {
    if (id < small_.size()) return small_[id];
    auto it = large_.find(id);
    return it == large_.end() ? kNoType : it->second;
  }
  const Type& type(uint32_t index) const { return types_[index]; }
  size_t type_count() const { return types_.size(); }
  std::span<const Field> fields(const Type& t) const { return {fields_.data() + t.first_field, t.field_count}; }

 private:
  bool element(Cursor& c, std::span<const std::string_view> strings, int depth, int parent);
  bool link(Cursor& c);

  std::string bytes_;
  size_t types_at_ = 0;  // where the metadata id is in bytes_
  Arena arena_;
  std::vector<Type> types_;
  std::vector<Field> fields_;
  std::vector<uint64_t> field_type_ids_;  // while parsing: each field's type id
  std::vector<uint32_t> small_;           // id -> index, for ids below 4096
  std::unordered_map<uint64_t, uint32_t> large_;
};

// Skips a value of TYPE (a pool entry, an inline value) or of field F.
void skip_value(const Metadata& md, uint32_t type, Cursor& c, int depth);
void skip_field(const Metadata& md, const Field& f, Cursor& c, int depth);

// Where each constant-pool entry's value is in the chunk: per type, key -> offset.
class PoolIndex {
 public:
  static constexpr size_t kNotFound = SIZE_MAX;

  // Indexes the constant-pool event at OFFSET of the chunk DATA[0, SIZE) and those before it, by
  // their deltas (none for OFFSET 0). False on failure, with *FAILED_AT (an offset in the chunk)
  // and *WHAT.
  bool build(const Metadata& md, const uint8_t* data, size_t size, uint64_t offset, size_t* failed_at,
             const char** what);

  size_t find(uint32_t type, uint64_t key) const {
    if (type >= map_of_type_.size() || map_of_type_[type] < 0) return kNotFound;
    const uint64_t* at = maps_[static_cast<size_t>(map_of_type_[type])].find(key);
    return at == nullptr ? kNotFound : static_cast<size_t>(*at);
  }

 private:
  std::vector<int32_t> map_of_type_;
  std::vector<KeyMap> maps_;  // kept from chunk to chunk, for their memory
  size_t maps_used_ = 0;
};

}  // namespace jvmkit::jfr::reader
