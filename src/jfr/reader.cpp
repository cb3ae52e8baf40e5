#include "jfr/reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "jfr/reader_format.hpp"

namespace jvmkit::jfr {

namespace {

using reader::Arena;
using reader::ChunkBuffer;
using reader::Cursor;
using reader::Field;
using reader::Kind;
using reader::Metadata;
using reader::PoolIndex;
using reader::Resolved;
using reader::Role;
using reader::StringRead;
using reader::Type;

constexpr size_t kHeaderSize = 68;

uint64_t raw(const uint8_t* p, int bytes) {
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

int64_t Reader::span_ns(int64_t ticks) const {
  if (ticks_per_second_ == 1'000'000'000) return ticks;
  // ticks * 10^9 / ticks_per_second without overflow: whole seconds, then the rest.
  const int64_t seconds = ticks / ticks_per_second_;
  const int64_t rest = ticks % ticks_per_second_;
  const auto sub = static_cast<int64_t>(static_cast<__int128>(rest) * 1'000'000'000 / ticks_per_second_);
  return static_cast<int64_t>(static_cast<uint64_t>(seconds) * 1'000'000'000u + static_cast<uint64_t>(sub));
}

std::string_view Reader::text_field(const Field& f, Cursor& c, Arena& arena, int depth) {
  if (f.array) {
    reader::skip_field(md_, f, c, depth);
    return {};
  }
  if (f.pool) return pooled_text(f.type, c.varint(), arena, depth);
  return text_value(f.type, c, arena, depth);
}

// A string, or a type that wraps one (Symbol, FrameType, ThreadState): its one field.
std::string_view Reader::text_value(uint32_t type, Cursor& c, Arena& arena, int depth) {
  if (depth > reader::kMaxDepth) {
    c.fail("values nested too deep");
    return {};
  }
  const Type& t = md_.type(type);
  if (t.kind == Kind::kString) {
    std::string_view text;
    uint64_t key = 0;
    if (reader::read_string(c, arena, &text, &key) == StringRead::kPoolKey)
      return pooled_text(type, key, arena, depth + 1);
    return text;
  }
  if (t.kind == Kind::kComposite && t.field_count == 1) return text_field(md_.fields(t)[0], c, arena, depth + 1);
  reader::skip_value(md_, type, c, depth);
  return {};
}

std::string_view Reader::pooled_text(uint32_t type, uint64_t key, Arena& arena, int depth) {
  const size_t at = pools_.find(type, key);
  if (at == PoolIndex::kNotFound) return {};
  Cursor c(data_, at, size_);
  const std::string_view text = text_value(type, c, arena, depth + 1);
  note(c);
  return text;
}

size_t Reader::thread(uint32_t type, uint64_t key) {
  if (const uint64_t* i = thread_keys_.find(type, key)) return *i;
  Cursor c(data_, 0, 0);
  if (!entry(type, key, &c)) return kNone;
  ReadThread t;
  std::string_view os_name, java_name;
  for (const Field& f : md_.fields(md_.type(type))) {
    switch (f.role) {
      case Role::kOsName:
        os_name = text_field(f, c, strings_, 0);
        break;
      case Role::kJavaName:
        java_name = text_field(f, c, strings_, 0);
        break;
      case Role::kOsThreadId:
        t.os_tid = int_field(f, c);
        break;
      case Role::kJavaThreadId:
        t.java_tid = int_field(f, c);
        break;
      default:
        reader::skip_field(md_, f, c, 0);
    }
  }
  note(c);
  t.name = java_name.empty() ? os_name : java_name;
  thread_keys_.put(type, key, threads_.size());
  threads_.push_back(t);
  return threads_.size() - 1;
}

std::string_view Reader::class_name(uint32_t type, uint64_t key) {
  if (const uint64_t* i = class_keys_.find(type, key)) return classes_[*i];
  Cursor c(data_, 0, 0);
  if (!entry(type, key, &c)) return {};
  std::string_view name;
  for (const Field& f : md_.fields(md_.type(type))) {
    if (f.role == Role::kName) {
      name = text_field(f, c, strings_, 0);
    } else {
      reader::skip_field(md_, f, c, 0);
    }
  }
  note(c);
  // The JVM names classes as its class files do, "java/lang/String"; Java names them with dots.
  if (name.find('/') != std::string_view::npos) {
    char* dotted = strings_.alloc(name.size());
    std::replace_copy(name.begin(), name.end(), dotted, '/', '.');
    name = {dotted, name.size()};
  }
  class_keys_.put(type, key, classes_.size());
  classes_.push_back(name);
  return name;
}

const Method* Reader::method(uint32_t type, uint64_t key) {
  if (const uint64_t* i = method_keys_.find(type, key)) return &methods_[*i];
  Cursor c(data_, 0, 0);
  if (!entry(type, key, &c)) return nullptr;
  Method m;
  for (const Field& f : md_.fields(md_.type(type))) {
    switch (f.role) {
      case Role::kType:
        if (f.pool && !f.array) {
          m.class_name = class_name(f.type, c.varint());
        } else {
          reader::skip_field(md_, f, c, 0);
        }
        break;
      case Role::kName:
        m.name = text_field(f, c, strings_, 0);
        break;
      case Role::kDescriptor:
        m.descriptor = text_field(f, c, strings_, 0);
        break;
      default:
        reader::skip_field(md_, f, c, 0);
    }
  }
  note(c);
  method_keys_.put(type, key, methods_.size());
  methods_.push_back(m);
  return &methods_.back();
}

void Reader::frame(uint32_t type, Cursor& c) {
  if (md_.type(type).kind != Kind::kComposite) {
    reader::skip_value(md_, type, c, 1);
    return;
  }
  ReadFrame fr;
  for (const Field& f : md_.fields(md_.type(type))) {
    switch (f.role) {
      case Role::kMethod:
        if (f.pool && !f.array) {
          if (const Method* m = method(f.type, c.varint())) {
            fr.class_name = m->class_name;
            fr.method = m->name;
            fr.descriptor = m->descriptor;
          }
        } else {
          reader::skip_field(md_, f, c, 1);
        }
        break;
      case Role::kLineNumber:
        fr.line = static_cast<int32_t>(int_field(f, c));
        break;
      case Role::kBytecodeIndex:
        fr.bci = static_cast<int32_t>(int_field(f, c));
        break;
      case Role::kType:
        fr.type = text_field(f, c, strings_, 1);
        break;
      default:
        reader::skip_field(md_, f, c, 1);
    }
  }
  frames_.push_back(fr);
}

size_t Reader::stack(uint32_t type, uint64_t key) {
  if (const uint64_t* i = stack_keys_.find(type, key)) return *i;
  Cursor c(data_, 0, 0);
  if (!entry(type, key, &c)) return kNone;
  Stack s{static_cast<uint32_t>(frames_.size()), 0, false};
  for (const Field& f : md_.fields(md_.type(type))) {
    if (f.role == Role::kTruncated) {
      s.truncated = int_field(f, c) != 0;
    } else if (f.role == Role::kFrames && f.array) {
      const uint64_t n = c.count();
      for (uint64_t i = 0; i < n && !c.failed(); i++) {
        Cursor pooled(data_, 0, 0);
        if (!f.pool) {
          frame(f.type, c);
        } else if (entry(f.type, c.varint(), &pooled)) {
          frame(f.type, pooled);
          note(pooled);
        }
      }
    } else {
      reader::skip_field(md_, f, c, 0);
    }
  }
  note(c);
  s.frame_count = static_cast<uint32_t>(frames_.size() - s.first_frame);
  stack_keys_.put(type, key, stacks_.size());
  stacks_.push_back(s);
  return stacks_.size() - 1;
}

void Reader::read_event(const Type& type, Cursor& c) {
  ReadEvent e;
  e.type = type.name;
  // Indices, not pointers: resolving one entry may move those resolved before.
  size_t sampled_thread = kNone, event_thread = kNone, s = kNone;
  scratch_.clear();
  for (const Field& f : md_.fields(type)) {
    switch (f.role) {
      case Role::kStartTime:
        e.start_ns = time_ns(int_field(f, c));
        break;
      case Role::kDuration:
        e.duration_ns = span_ns(int_field(f, c));
        break;
      case Role::kSampledThread:
        sampled_thread = thread(f.type, key_field(f, c));
        break;
      case Role::kEventThread:
        event_thread = thread(f.type, key_field(f, c));
        break;
      case Role::kStackTrace:
        s = stack(f.type, key_field(f, c));
        break;
      case Role::kObjectClass:
        e.object_class = class_name(f.type, key_field(f, c));
        break;
      case Role::kWeight:
        e.weight = int_field(f, c);
        break;
      case Role::kEvent:
        e.event_name = text_field(f, c, scratch_, 0);
        break;
      case Role::kId:
        if (type.setting) {
          const auto id = static_cast<uint64_t>(int_field(f, c));
          const uint32_t of = id == 0 ? Metadata::kNoType : md_.find(id);
          e.setting_type = of == Metadata::kNoType ? std::string_view() : md_.type(of).name;
        } else {
          reader::skip_field(md_, f, c, 0);
        }
        break;
      case Role::kName:
      case Role::kValue:
        if (type.setting) {
          (f.role == Role::kName ? e.setting_name : e.setting_value) = text_field(f, c, scratch_, 0);
        } else {
          reader::skip_field(md_, f, c, 0);
        }
        break;
      default:
        reader::skip_field(md_, f, c, 0);
    }
  }
  if (c.failed() || bad_what_ != nullptr) return;
  if (sampled_thread == kNone) sampled_thread = event_thread;
  if (sampled_thread != kNone) e.thread = &threads_[sampled_thread];
  if (s != kNone) {
    e.frames = {frames_.data() + stacks_[s].first_frame, stacks_[s].frame_count};
    e.truncated = stacks_[s].truncated;
    e.stack_id = s + 1;
  }
  e.chunk = chunk_number_;
  if (stats_ != nullptr) stats_->events++;
  if (!on_event_(e)) stopped_ = true;
}

Error Reader::read_events() {
  for (size_t at = kHeaderSize; at < size_ && !stopped_;) {
    Cursor c(data_, at, size_);
    const uint64_t size = c.varint();
    if (c.failed() || size == 0 || size > size_ - at)
      return chunk_error("an event whose size runs past its chunk", chunk_at_ + at);
    c.limit(at + size);
    // Types 0 and 1 are the metadata and constant-pool events, read already; a type the
    // metadata does not declare as an event is skipped, as the JDK's reader does.
    if (const uint64_t id = c.varint(); id > 1 && !c.failed()) {
      const uint32_t type = md_.find(id);
      if (type != Metadata::kNoType && md_.type(type).event) read_event(md_.type(type), c);
    }
    if (c.failed()) return chunk_error(c.what(), chunk_at_ + c.failed_at());
    if (bad_what_ != nullptr) return chunk_error(bad_what_, chunk_at_ + bad_at_);
    at += size;
  }
  return Error::ok();
}

Error Reader::read_chunk(const uint8_t* header) {
  const uint64_t pools_at = raw(header + 16, 8);
  const uint64_t metadata_at = raw(header + 24, 8);
  start_nanos_ = static_cast<int64_t>(raw(header + 32, 8));
  start_ticks_ = raw(header + 48, 8);
  ticks_per_second_ = static_cast<int64_t>(raw(header + 56, 8));
  if (metadata_at == 0)
    return chunk_error("a chunk without metadata (a recording the JVM did not end)", chunk_at_ + 24);
  if (metadata_at < kHeaderSize || metadata_at >= size_)
    return chunk_error("a metadata offset outside the chunk", chunk_at_ + 24);
  if (pools_at != 0 && (pools_at < kHeaderSize || pools_at >= size_))
    return chunk_error("a constant-pool offset outside the chunk", chunk_at_ + 16);
  if (ticks_per_second_ <= 0) return chunk_error("a chunk of 0 ticks per second", chunk_at_ + 56);

  Cursor c(data_, metadata_at, size_);
  const uint64_t metadata_size = c.varint();
  if (c.failed() || metadata_size == 0 || metadata_size > size_ - metadata_at)
    return chunk_error("a metadata event whose size runs past its chunk", chunk_at_ + metadata_at);
  const std::string_view metadata(reinterpret_cast<const char*>(data_ + metadata_at), metadata_size);
  size_t failed_at = 0;
  const char* what = nullptr;
  // Chunks of one recording mostly declare the same types: parse them again only when they differ.
  if (!md_.parsed_from(metadata) && !md_.parse(metadata, &failed_at, &what))
    return chunk_error(what, chunk_at_ + metadata_at + failed_at);

  strings_.clear();
  for (Resolved* keys : {&thread_keys_, &class_keys_, &method_keys_, &stack_keys_}) keys->clear();
  threads_.clear();
  classes_.clear();
  methods_.clear();
  stacks_.clear();
  frames_.clear();
  bad_what_ = nullptr;
  if (!pools_.build(md_, data_, size_, pools_at, &failed_at, &what)) return chunk_error(what, chunk_at_ + failed_at);
  return read_events();
}

Error Reader::read() {
  const int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return system_error();
  const Error e = read(fd);
  close(fd);
  return e;
}

Error Reader::read(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return system_error();
  const auto file_size = static_cast<uint64_t>(st.st_size);
  const Error not_jfr(path_ + ": not a Flight Recorder file (at byte 0)");
  if (file_size == 0) return not_jfr;
  for (uint64_t at = 0; at < file_size && !stopped_;) {
    chunk_number_++;
    chunk_at_ = at;
    uint8_t header[kHeaderSize];
    const ssize_t got = reader::read_at(fd, header, std::min<uint64_t>(kHeaderSize, file_size - at), at);
    if (got < 0) return system_error();
    const auto have = static_cast<size_t>(got);
    if (std::memcmp(header, "FLR\0", std::min<size_t>(have, 4)) != 0)
      return at == 0 ? not_jfr : chunk_error("no chunk header (FLR) where the previous chunk ends", at);
    if (have < kHeaderSize)
      return cut_short(at, "has " + std::to_string(have) + " of the 68 bytes of its header", at + have);
    if (raw(header + 4, 2) != 2) return chunk_error("a chunk of a format version other than 2.x", at + 4);
    const uint64_t size = raw(header + 8, 8);
    if (size < kHeaderSize) return chunk_error("a chunk size smaller than its header", at + 8);
    if (size > max_chunk_) {
      return Error(path_ + ": chunk " + std::to_string(chunk_number_) + " at byte " + std::to_string(at) + " claims " +
                   std::to_string(size) + " bytes, more than the limit of " + std::to_string(max_chunk_) + " bytes");
    }
    const std::string claim = "claims " + std::to_string(size) + " bytes";
    if (size > file_size - at) return cut_short(at, claim, file_size);
    size_ = static_cast<size_t>(size);
    const ssize_t loaded = buffer_.load(fd, at, size_);
    if (loaded < 0) return system_error();
    if (static_cast<size_t>(loaded) < size_) return cut_short(at, claim, at + static_cast<uint64_t>(loaded));
    data_ = buffer_.data();
    if (stats_ != nullptr) stats_->max_chunk = std::max(stats_->max_chunk, size_);
    if (Error e = read_chunk(header)) return e;
    if (stopped_) break;
    if (stats_ != nullptr) {
      stats_->chunks++;
      stats_->bytes += static_cast<int64_t>(size);
    }
    at += size;
  }
  return Error::ok();
}

}  // namespace

Error read_recording(const std::string& path, const std::function<bool(const ReadEvent&)>& on_event, ReadStats* stats,
                     size_t max_chunk) {
  Reader reader(path, on_event, stats, max_chunk);
  return reader.read();
}

}  // namespace jvmkit::jfr
