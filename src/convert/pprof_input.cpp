// pprof input (profile.proto, gzip-compressed or not), for convert and diff: each sample's stack
// from its locations' lines (leaf first), its count and weight from its sample-type values.
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "convert/samples.hpp"
#include "profiler/recording/thread_root_name.hpp"

namespace jvmkit::convert {

namespace {

// A protobuf message's bytes, read field by field. Every read is bounds-checked: a malformed file
// ends the reading with ok() false, never outside the buffer.
class Fields {
 public:
  explicit Fields(std::string_view bytes) : p_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  // The next field: its number and wire type; false at the end or on malformed input.
  bool next(uint32_t* field, uint32_t* wire) {
    if (p_ >= end_ || !ok_) return false;
    uint64_t key = 0;
    if (!varint(&key)) return false;
    *field = static_cast<uint32_t>(key >> 3);
    *wire = static_cast<uint32_t>(key & 7);
    return true;
  }
  bool varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) return ok_ = false;
      const auto b = static_cast<unsigned char>(*p_++);
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) return true;
    }
    return ok_ = false;
  }
  bool bytes(std::string_view* out) {
    uint64_t n = 0;
    if (!varint(&n) || n > static_cast<uint64_t>(end_ - p_)) return ok_ = false;
    *out = std::string_view(p_, n);
    p_ += n;
    return true;
  }
  // Skips a field of WIRE type.
  bool skip(uint32_t wire) {
    uint64_t v = 0;
    std::string_view b;
    switch (wire) {
      case 0:
        return varint(&v);
      case 1:
        return advance(8);
      case 2:
        return bytes(&b);
      case 5:
        return advance(4);
      default:
        return ok_ = false;
    }
  }
  // A repeated integer field: packed (wire 2) or one value (wire 0).
  bool integers(uint32_t wire, std::vector<uint64_t>* out) {
    if (wire == 0) {
      uint64_t v = 0;
      if (!varint(&v)) return false;
      out->push_back(v);
      return true;
    }
    std::string_view packed;
    if (wire != 2 || !bytes(&packed)) return ok_ = false;
    Fields inner(packed);
    uint64_t v = 0;
    while (inner.p_ < inner.end_) {
      if (!inner.varint(&v)) return ok_ = false;
      out->push_back(v);
    }
    return true;
  }
  bool ok() const { return ok_; }

 private:
  bool advance(size_t n) {
    if (n > static_cast<size_t>(end_ - p_)) return ok_ = false;
    p_ += n;
    return true;
  }
  const char* p_;
  const char* end_;
  bool ok_ = true;
};

Error gunzip(const std::string& in, std::string* out) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return Error("zlib: cannot start");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  char buffer[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof(buffer);
    rc = inflate(&z, Z_NO_FLUSH);
    out->append(buffer, sizeof(buffer) - z.avail_out);
  }
  const uLong at = z.total_in;
  inflateEnd(&z);
  if (rc != Z_STREAM_END) return Error("not a whole gzip stream (stops at byte " + std::to_string(at) + ")");
  return Error::ok();
}

struct Location {
  std::vector<std::pair<uint64_t, int64_t>> lines;  // (function id, line), the innermost first
};

// The event a pprof sample type names, as the converter names events.
std::string event_of(std::string_view type) {
  if (type == "alloc_space" || type == "alloc_objects") return "alloc";
  if (type == "delay" || type == "contentions") return "lock";
  return std::string(type);
}

}  // namespace

Error read_pprof_samples(const std::string& path, const SampleFunction& f) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error("cannot read " + path + ": " + std::strerror(errno));
  std::stringstream raw;
  raw << in.rdbuf();
  std::string bytes = raw.str();
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
      static_cast<unsigned char>(bytes[1]) == 0x8b) {
    std::string plain;
    if (Error e = gunzip(bytes, &plain)) return Error(path + ": " + e.message());
    bytes.swap(plain);
  }
  // The tables first (a Profile's fields may come in any order), then the samples.
  std::vector<std::string_view> strings;
  std::vector<std::pair<uint64_t, uint64_t>> types;  // (type, unit) string indices
  std::unordered_map<uint64_t, uint64_t> function_names;
  std::unordered_map<uint64_t, Location> locations;
  std::vector<std::string_view> samples;
  Fields profile(bytes);
  uint32_t field = 0, wire = 0;
  while (profile.next(&field, &wire)) {
    std::string_view message;
    if (wire != 2 || field > 6) {
      if (!profile.skip(wire)) break;
      continue;
    }
    if (!profile.bytes(&message)) break;
    Fields m(message);
    uint32_t mf = 0, mw = 0;
    uint64_t id = 0, a = 0, b = 0;
    switch (field) {
      case 1:  // ValueType
        while (m.next(&mf, &mw)) {
          if (mw == 0 && (mf == 1 || mf == 2))
            m.varint(mf == 1 ? &a : &b);
          else
            m.skip(mw);
        }
        types.emplace_back(a, b);
        break;
      case 2:
        samples.push_back(message);
        break;
      case 4: {  // Location
        Location loc;
        while (m.next(&mf, &mw)) {
          std::string_view line;
          if (mf == 1 && mw == 0) {
            m.varint(&id);
          } else if (mf == 4 && mw == 2 && m.bytes(&line)) {
            Fields l(line);
            uint64_t function = 0, number = 0;
            uint32_t lf = 0, lw = 0;
            while (l.next(&lf, &lw)) {
              if (lw == 0 && (lf == 1 || lf == 2))
                l.varint(lf == 1 ? &function : &number);
              else
                l.skip(lw);
            }
            loc.lines.emplace_back(function, static_cast<int64_t>(number));
          } else {
            m.skip(mw);
          }
        }
        locations[id] = std::move(loc);
        break;
      }
      case 5:  // Function
        while (m.next(&mf, &mw)) {
          if (mw == 0 && (mf == 1 || mf == 2))
            m.varint(mf == 1 ? &id : &a);
          else
            m.skip(mw);
        }
        function_names[id] = a;
        break;
      case 6:
        strings.push_back(message);
        break;
      default:
        break;
    }
    if (!m.ok()) return Error(path + ": corrupt profile.proto (a message of field " + std::to_string(field) + ")");
  }
  if (!profile.ok()) return Error(path + ": corrupt profile.proto (its fields run past its end)");
  auto text = [&](uint64_t i) { return i < strings.size() ? strings[i] : std::string_view(); };

  // Each event: a (count, value) pair of sample types, or one type alone.
  struct Pick {
    std::string event;
    size_t count = SIZE_MAX, value = SIZE_MAX;
  };
  std::vector<Pick> picks;
  for (size_t i = 0; i < types.size(); i++) {
    const bool count = text(types[i].second) == "count";
    if (count && i + 1 < types.size() && text(types[i + 1].second) != "count") {
      picks.push_back({event_of(text(types[i + 1].first)), i, i + 1});
      i++;
    } else {
      picks.push_back({event_of(text(types[i].first)), count ? i : SIZE_MAX, count ? SIZE_MAX : i});
    }
  }
  std::vector<SampleFrame> frames;
  std::vector<uint64_t> location_ids, values;
  for (std::string_view message : samples) {
    Fields m(message);
    uint32_t mf = 0, mw = 0;
    location_ids.clear();
    values.clear();
    while (m.next(&mf, &mw)) {
      if (mf == 1)
        m.integers(mw, &location_ids);
      else if (mf == 2)
        m.integers(mw, &values);
      else
        m.skip(mw);
    }
    if (!m.ok()) return Error(path + ": corrupt profile.proto (a sample)");
    frames.clear();
    for (uint64_t id : location_ids) {
      auto loc = locations.find(id);
      if (loc == locations.end()) continue;
      for (const auto& [function, line] : loc->second.lines) {
        auto name = function_names.find(function);
        SampleFrame frame;
        frame.name = name != function_names.end() ? text(name->second) : std::string_view("?");
        frame.line = static_cast<int32_t>(line);
        if (prof::is_thread_root_name(frame.name)) frame.type = prof::FrameType::kThread;
        frames.push_back(frame);
      }
    }
    for (const Pick& p : picks) {
      const int64_t count = p.count < values.size() ? static_cast<int64_t>(values[p.count]) : 0;
      const int64_t weight = p.value < values.size() ? static_cast<int64_t>(values[p.value]) : 0;
      if (count == 0 && weight == 0) continue;
      Sample s;
      s.event = p.event;
      s.frames = frames;
      s.count = count > 0 ? count : 1;
      s.weight = weight;
      if (!f(s)) return Error::ok();
    }
  }
  return Error::ok();
}

}  // namespace jvmkit::convert
