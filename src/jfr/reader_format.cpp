#include "jfr/reader_format.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace jvmkit::jfr::reader {

namespace {

constexpr size_t kHeaderSize = 68;
constexpr size_t kArenaBlock = size_t{64} << 10;

// A type's encoding when it has no fields: the primitives, by the names the JDK gives them.
Kind primitive_kind(std::string_view name) {
  if (name == "boolean" || name == "byte") return Kind::kByte;
  if (name == "int" || name == "long" || name == "short" || name == "char") return Kind::kVarint;
  if (name == "float") return Kind::kFloat;
  if (name == "double") return Kind::kDouble;
  if (name == "java.lang.String") return Kind::kString;
  return Kind::kNone;
}

Role role_of(std::string_view name) {
  static constexpr std::pair<std::string_view, Role> kRoles[] = {
      {"startTime", Role::kStartTime},
      {"duration", Role::kDuration},
      {"sampledThread", Role::kSampledThread},
      {"eventThread", Role::kEventThread},
      {"stackTrace", Role::kStackTrace},
      {"objectClass", Role::kObjectClass},
      {"monitorClass", Role::kObjectClass},
      {"parkedClass", Role::kObjectClass},
      {"weight", Role::kWeight},
      {"event", Role::kEvent},
      {"id", Role::kId},
      {"name", Role::kName},
      {"value", Role::kValue},
      {"osName", Role::kOsName},
      {"osThreadId", Role::kOsThreadId},
      {"javaName", Role::kJavaName},
      {"javaThreadId", Role::kJavaThreadId},
      {"truncated", Role::kTruncated},
      {"frames", Role::kFrames},
      {"method", Role::kMethod},
      {"lineNumber", Role::kLineNumber},
      {"bytecodeIndex", Role::kBytecodeIndex},
      {"type", Role::kType},
      {"descriptor", Role::kDescriptor},
  };
  for (const auto& [n, role] : kRoles)
    if (n == name) return role;
  return Role::kOther;
}

bool parse_u64(std::string_view s, uint64_t* v) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && end == s.data() + s.size();
}

void put_utf8(uint32_t cp, char* out, size_t* len) {
  auto put = [&](uint32_t b) { out[(*len)++] = static_cast<char>(b); };
  if (cp < 0x80) {
    put(cp);
  } else if (cp < 0x800) {
    put(0xc0 | cp >> 6);
    put(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    put(0xe0 | cp >> 12);
    put(0x80 | (cp >> 6 & 0x3f));
    put(0x80 | (cp & 0x3f));
  } else {
    put(0xf0 | cp >> 18);
    put(0x80 | (cp >> 12 & 0x3f));
    put(0x80 | (cp >> 6 & 0x3f));
    put(0x80 | (cp & 0x3f));
  }
}

}  // namespace

uint64_t Cursor::varint_slow() {
  const size_t start = pos_;
  uint64_t v = 0;
  for (int i = 0; i < 9; i++) {
    if (pos_ >= end_) {
      fail("a value runs past the end of its event", start);
      return 0;
    }
    const uint64_t b = data_[pos_++];
    if (i == 8) return v | b << 56;
    v |= (b & 0x7f) << (7 * i);
    if (b < 0x80) break;
  }
  return v;
}

char* Arena::alloc(size_t n) {
  if (n > left_) {
    const size_t size = std::max(n, kArenaBlock);
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
    if (blocks_.size() == 1) first_size_ = size;
    next_ = blocks_.back().get();
    left_ = size;
  }
  char* p = next_;
  next_ += n;
  left_ -= n;
  return p;
}

std::string_view Arena::copy(std::string_view s) {
  char* p = alloc(s.size());
  if (!s.empty()) std::memcpy(p, s.data(), s.size());
  return {p, s.size()};
}

void Arena::release() { blocks_.resize(1); }

StringRead read_string(Cursor& c, Arena& arena, std::string_view* text, uint64_t* key) {
  *text = {};
  const size_t at = c.pos();
  switch (c.u8()) {
    case 0:
      return StringRead::kNull;
    case 1:
      return StringRead::kText;
    case 2:
      *key = c.varint();
      return StringRead::kPoolKey;
    case 3:
      *text = c.bytes(c.varint());
      return StringRead::kText;
    case 4: {
      // UTF-16 code units, each a varint: a pair of surrogates is one code point.
      const uint64_t n = c.count();
      char* out = arena.alloc(3 * n);
      size_t len = 0;
      for (uint64_t i = 0; i < n && !c.failed(); i++) {
        uint32_t unit = static_cast<uint16_t>(c.varint());
        if (unit >= 0xd800 && unit < 0xdc00 && i + 1 < n) {
          Cursor next = c;
          const uint32_t low = static_cast<uint16_t>(next.varint());
          if (low >= 0xdc00 && low < 0xe000) {
            c = next;
            i++;
            put_utf8(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00), out, &len);
            continue;
          }
        }
        if (unit >= 0xd800 && unit < 0xe000) unit = '?';  // a lone surrogate, as Java encodes it
        put_utf8(unit, out, &len);
      }
      *text = {out, len};
      return StringRead::kText;
    }
    case 5: {
      const std::string_view latin1 = c.bytes(c.varint());
      size_t high = 0;
      for (char ch : latin1) high += static_cast<unsigned char>(ch) >> 7;
      if (high == 0) {
        *text = latin1;
        return StringRead::kText;
      }
      char* out = arena.alloc(latin1.size() + high);
      size_t len = 0;
      for (char ch : latin1) put_utf8(static_cast<unsigned char>(ch), out, &len);
      *text = {out, len};
      return StringRead::kText;
    }
    default:
      c.fail("an unknown string encoding", at);
      return StringRead::kNull;
  }
}

void skip_string(Cursor& c) {
  const size_t at = c.pos();
  switch (c.u8()) {
    case 0:
    case 1:
      return;
    case 2:
      c.varint();
      return;
    case 3:
    case 5:
      c.skip(c.varint());
      return;
    case 4: {
      const uint64_t n = c.count();
      for (uint64_t i = 0; i < n && !c.failed(); i++) c.varint();
      return;
    }
    default:
      c.fail("an unknown string encoding", at);
  }
}

void KeyMap::clear() {
  // A chunk with many more entries than the next ones would keep its memory, and cost a clear of
  // all of it per chunk.
  if (slots_.size() > 4096 && count_ * 4 < slots_.size()) {
    slots_ = {};
    mask_ = 0;
    shift_ = 64;
  } else {
    std::fill(slots_.begin(), slots_.end(), Slot{0, 0});
  }
  count_ = 0;
  has_zero_ = false;
}

void KeyMap::grow() {
  std::vector<Slot> old = std::move(slots_);
  const size_t size = std::max<size_t>(16, old.size() * 2);
  slots_.assign(size, Slot{0, 0});
  mask_ = size - 1;
  shift_ = 64 - __builtin_ctzll(size);
  count_ = 0;
  for (const Slot& s : old)
    if (s.key != 0) put(s.key, s.value);
}

void KeyMap::put(uint64_t key, uint64_t value) {
  if (key == 0) {
    has_zero_ = true;
    zero_ = value;
    return;
  }
  if ((count_ + 1) * 2 > slots_.size()) grow();
  for (size_t i = slot(key);; i = (i + 1) & mask_) {
    if (slots_[i].key == key) {
      slots_[i].value = value;
      return;
    }
    if (slots_[i].key == 0) {
      slots_[i] = {key, value};
      count_++;
      return;
    }
  }
}

void Resolved::put(uint32_t type, uint64_t key, uint64_t index) {
  for (auto& [t, map] : maps_) {
    if (t == type) {
      map.put(key, index);
      return;
    }
  }
  maps_.emplace_back(type, KeyMap());
  maps_.back().second.put(key, index);
}

ssize_t read_at(int fd, uint8_t* out, size_t n, uint64_t at) {
  size_t done = 0;
  while (done < n) {
    const ssize_t got = pread(fd, out + done, n - done, static_cast<off_t>(at + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return -1;
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  return static_cast<ssize_t>(done);
}

ssize_t ChunkBuffer::load(int fd, uint64_t at, size_t n) {
  if (n > capacity_) {
    bytes_.reset();  // the old chunk's memory goes before the new one's is taken
    bytes_ = std::make_unique_for_overwrite<uint8_t[]>(n);
    capacity_ = n;
  }
#if defined(__SANITIZE_ADDRESS__)
  // The sanitizer builds see a read past the chunk into the unused end of the buffer.
  ASAN_UNPOISON_MEMORY_REGION(bytes_.get(), capacity_);
  ASAN_POISON_MEMORY_REGION(bytes_.get() + n, capacity_ - n);
#endif
  return read_at(fd, bytes_.get(), n, at);
}

// --- Metadata ---

namespace {

// Where an element of the metadata's tree is, which says what it describes.
enum Place { kTop, kRoot, kMetadataList, kClass, kFieldElement, kElsewhere };

}  // namespace

bool Metadata::element(Cursor& c, std::span<const std::string_view> strings, int depth, int parent) {
  if (depth > 8) {
    c.fail("metadata elements nested too deep");
    return false;
  }
  auto text = [&](uint64_t index) -> std::string_view {
    if (index >= strings.size()) {
      c.fail("a metadata string index outside the string table");
      return {};
    }
    return strings[index];
  };
  const std::string_view name = text(c.varint());
  int place = kElsewhere;
  if (parent == kTop) place = kRoot;
  if (parent == kRoot && name == "metadata") place = kMetadataList;
  if (parent == kMetadataList && name == "class") place = kClass;
  if (parent == kClass && name == "field") place = kFieldElement;

  std::string_view attr_name, attr_id, attr_super, attr_class, attr_dimension;
  // simpleType is not looked at: a simple type's value is its one field's, whose text
  // text_value takes from any single-field type.
  bool pool = false;
  const uint64_t attributes = c.count();
  for (uint64_t i = 0; i < attributes && !c.failed(); i++) {
    const std::string_view key = text(c.varint());
    const std::string_view value = text(c.varint());
    if (key == "name") attr_name = value;
    if (key == "id") attr_id = value;
    if (key == "superType") attr_super = value;
    if (key == "class") attr_class = value;
    if (key == "dimension") attr_dimension = value;
    if (key == "constantPool") pool = true;
  }
  if (c.failed()) return false;

  if (place == kClass) {
    Type t;
    if (!parse_u64(attr_id, &t.id)) {
      c.fail("a metadata class without a numeric id");
      return false;
    }
    t.name = attr_name;
    t.first_field = static_cast<uint32_t>(fields_.size());
    t.event = attr_super == "jdk.jfr.Event";
    t.setting = attr_name == "jdk.ActiveSetting";
    types_.push_back(t);
  } else if (place == kFieldElement) {
    Field f;
    uint64_t type_id = 0, dimension = 0;
    if (!parse_u64(attr_class, &type_id) || (!attr_dimension.empty() && !parse_u64(attr_dimension, &dimension)) ||
        dimension > 1) {
      c.fail("a metadata field without a type id or of more than one dimension");
      return false;
    }
    f.role = role_of(attr_name);
    f.pool = pool;
    f.array = dimension == 1;
    fields_.push_back(f);
    field_type_ids_.push_back(type_id);
  }

  const uint64_t children = c.count();
  for (uint64_t i = 0; i < children; i++)
    if (!element(c, strings, depth + 1, place)) return false;
  if (place == kClass) {
    Type& t = types_.back();
    t.field_count = static_cast<uint32_t>(fields_.size() - t.first_field);
  }
  return !c.failed();
}

bool Metadata::link(Cursor& c) {
  for (uint32_t i = 0; i < types_.size(); i++) {
    Type& t = types_[i];
    t.kind = t.field_count > 0 ? Kind::kComposite : primitive_kind(t.name);
    if (t.id < 4096) {
      if (small_.size() <= t.id) small_.resize(t.id + 1, kNoType);
      small_[t.id] = i;
    } else {
      large_[t.id] = i;
    }
  }
  for (size_t i = 0; i < fields_.size(); i++) {
    Field& f = fields_[i];
    f.type = find(field_type_ids_[i]);
    if (f.type == kNoType) {
      c.fail("a metadata field of an undeclared type", 0);
      return false;
    }
    f.kind = types_[f.type].kind;
    // As the JDK's reader, refuse a value that could not be read: neither a primitive nor fields.
    if (f.kind == Kind::kNone && !f.pool) {
      c.fail("a metadata field of a type that has no fields and is no primitive", 0);
      return false;
    }
  }
  return true;
}

namespace {

// Where the metadata id is in a metadata event: after its size, type id, start and duration.
size_t metadata_id_at(std::string_view event) {
  Cursor c(reinterpret_cast<const uint8_t*>(event.data()), 0, event.size());
  for (int i = 0; i < 4; i++) c.varint();
  return c.pos();
}

}  // namespace

bool Metadata::parsed_from(std::string_view event) const {
  return !bytes_.empty() && event.substr(metadata_id_at(event)) == std::string_view(bytes_).substr(types_at_);
}

bool Metadata::parse(std::string_view event, size_t* failed_at, const char** what) {
  bytes_.assign(event);
  arena_.clear();
  types_.clear();
  fields_.clear();
  field_type_ids_.clear();
  small_.clear();
  large_.clear();
  Cursor c(reinterpret_cast<const uint8_t*>(bytes_.data()), 0, bytes_.size());
  c.varint();  // size
  if (c.varint() != 0) c.fail("the header's metadata offset names another event", 0);
  c.varint();  // start
  c.varint();  // duration
  types_at_ = c.pos();
  c.varint();  // metadata id: the bytes themselves say whether the types changed
  std::vector<std::string_view> strings(c.count());
  for (std::string_view& s : strings) {
    uint64_t key = 0;
    if (read_string(c, arena_, &s, &key) == StringRead::kPoolKey) c.fail("a constant-pool string in the metadata");
  }
  if (!c.failed() && element(c, strings, 0, kTop)) link(c);
  field_type_ids_.clear();
  if (c.failed()) {
    *failed_at = c.failed_at();
    *what = c.what();
    bytes_.clear();
    return false;
  }
  return true;
}

// --- Skipping values ---

void skip_field(const Metadata& md, const Field& f, Cursor& c, int depth) {
  uint64_t n = 1;
  if (f.array) {
    n = c.count();
    if (!f.pool && f.kind == Kind::kByte) {
      c.skip(n);
      return;
    }
  }
  for (uint64_t i = 0; i < n && !c.failed(); i++) {
    if (f.pool) {
      c.varint();
      continue;
    }
    switch (f.kind) {
      case Kind::kByte:
        c.skip(1);
        break;
      case Kind::kVarint:
        c.varint();
        break;
      case Kind::kFloat:
        c.skip(4);
        break;
      case Kind::kDouble:
        c.skip(8);
        break;
      case Kind::kString:
        skip_string(c);
        break;
      case Kind::kComposite:
        skip_value(md, f.type, c, depth + 1);
        break;
      case Kind::kNone:
        c.fail("a value of a type that has no fields");
        break;
    }
  }
}

void skip_value(const Metadata& md, uint32_t type, Cursor& c, int depth) {
  if (depth > kMaxDepth) {
    c.fail("values nested too deep");
    return;
  }
  const Type& t = md.type(type);
  if (t.kind != Kind::kComposite) {
    const Field f{type, t.kind};
    skip_field(md, f, c, depth);
    return;
  }
  for (const Field& f : md.fields(t)) {
    skip_field(md, f, c, depth);
    if (c.failed()) return;
  }
}

// --- Constant pools ---

bool PoolIndex::build(const Metadata& md, const uint8_t* data, size_t size, uint64_t offset, size_t* failed_at,
                      const char** what) {
  map_of_type_.assign(md.type_count(), -1);
  for (size_t i = 0; i < maps_used_; i++) maps_[i].clear();
  maps_used_ = 0;
  if (offset == 0) return true;
  Cursor c(data, 0, size);
  // The deltas lead back, each to an earlier event: a corrupt one cannot make a cycle.
  for (uint64_t at = offset;;) {
    c = Cursor(data, at, size);
    const uint64_t event_size = c.varint();
    if (event_size == 0 || event_size > size - at) c.fail("a constant-pool event whose size runs past its chunk", at);
    if (!c.failed()) c.limit(at + event_size);
    if (c.varint() != 1) c.fail("a constant-pool offset that names another event", at);
    c.varint();  // start
    c.varint();  // duration
    // A signed delta: two's complement, as every signed varint.
    const uint64_t delta = c.varint();
    const uint64_t back = 0 - delta;
    c.u8();  // the checkpoint's kind
    const uint64_t pools = c.count();
    for (uint64_t p = 0; p < pools && !c.failed(); p++) {
      const size_t pool_at = c.pos();
      const uint32_t type = md.find(c.varint());
      if (type == Metadata::kNoType || md.type(type).kind == Kind::kNone) {
        c.fail("a constant pool of a type the metadata does not declare, or without fields", pool_at);
        break;
      }
      if (map_of_type_[type] < 0) {
        if (maps_used_ == maps_.size()) maps_.emplace_back();
        map_of_type_[type] = static_cast<int32_t>(maps_used_++);
      }
      KeyMap& map = maps_[static_cast<size_t>(map_of_type_[type])];
      const uint64_t entries = c.count();
      for (uint64_t e = 0; e < entries && !c.failed(); e++) {
        const uint64_t key = c.varint();
        map.put(key, c.pos());
        skip_value(md, type, c, 0);
      }
    }
    if (!c.failed() && c.pos() != at + event_size) c.fail("a constant-pool event longer than its pools", at);
    if (!c.failed() && delta != 0 && (back > at || at - back < kHeaderSize)) {
      c.fail("a constant-pool delta that does not lead to an earlier event", at);
    }
    if (c.failed()) {
      *failed_at = c.failed_at();
      *what = c.what();
      return false;
    }
    if (delta == 0) return true;
    at -= back;
  }
}

}  // namespace jvmkit::jfr::reader
