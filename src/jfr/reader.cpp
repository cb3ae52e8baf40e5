#include "jfr/reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "jfr/reader_chunk.hpp"

namespace jvmkit::jfr::reader {

int64_t Reader::span_ns(int64_t ticks) const {
  if (ticks_per_second_ == 1'000'000'000) return ticks;
  // ticks * 10^9 / ticks_per_second without overflow: whole seconds, then the rest.
  const int64_t seconds = ticks / ticks_per_second_;
  const int64_t rest = ticks % ticks_per_second_;
  const auto sub = static_cast<int64_t>(static_cast<__int128>(rest) * 1'000'000'000 / ticks_per_second_);
  return static_cast<int64_t>(static_cast<uint64_t>(seconds) * 1'000'000'000u + static_cast<uint64_t>(sub));
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
      case Role::kSamples:
        e.samples = int_field(f, c);
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

}  // namespace jvmkit::jfr::reader

namespace jvmkit::jfr {

Error read_recording(const std::string& path, const std::function<bool(const ReadEvent&)>& on_event, ReadStats* stats,
                     size_t max_chunk) {
  reader::Reader reader(path, on_event, stats, max_chunk);
  return reader.read();
}

}  // namespace jvmkit::jfr
