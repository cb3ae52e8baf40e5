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
