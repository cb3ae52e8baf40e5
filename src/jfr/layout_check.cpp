#include "jfr/layout_check.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <span>

#include "jfr/reader_format.hpp"

namespace jvmkit::jfr {

namespace {

using reader::Cursor;
using reader::Field;
using reader::Kind;
using reader::Metadata;
using reader::PoolIndex;
using reader::Role;
using reader::Type;

constexpr size_t kHeaderSize = 68;

uint64_t raw(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v = v << 8 | p[i];
  return v;
}

// --- The types async-profiler's converter reads by position (one/jfr/JfrReader.java) ---

// A field as such a reader expects it: its type's name ("" for any type), whether it is a pool
// key, an array. An optional field may be missing at the end (the converter looks for it by name).
struct Slot {
  std::string_view type;
  bool pool = false;
  bool array = false;
  bool optional = false;
};

enum class Rest {
  kNone,     // exactly these fields: the reader goes on where they end
  kNumeric,  // more fields may follow, each read as a varint (a pool key, an integer, a boolean)
};

struct Layout {
  std::string_view type;
  std::span<const Slot> slots;
  Rest rest;
};

constexpr std::string_view kString = "java.lang.String";
constexpr Slot kThread[] = {{kString}, {"long"}, {kString}, {"long"}};
constexpr Slot kClass[] = {{"", true}, {"jdk.types.Symbol", true}, {"", true}, {"int"}};
constexpr Slot kMethod[] = {
    {"java.lang.Class", true}, {"jdk.types.Symbol", true}, {"jdk.types.Symbol", true}, {"int"}, {"boolean"}};
constexpr Slot kStackTrace[] = {{"boolean"}, {"jdk.types.StackFrame", false, true}};
constexpr Slot kStackFrame[] = {{"jdk.types.Method", true}, {"int"}, {"int"}, {"jdk.types.FrameType", true}};
constexpr Slot kSymbol[] = {{kString}};
constexpr Slot kExecutionSample[] = {
    {"long"}, {"java.lang.Thread", true}, {"jdk.types.StackTrace", true}, {"jdk.types.ThreadState", true}};
constexpr Slot kWallClockSample[] = {
    {"long"}, {"java.lang.Thread", true},  {"jdk.types.StackTrace", true}, {"jdk.types.ThreadState", true},
    {"int"},  {"long", false, false, true}};  // timeSpan
constexpr Slot kAllocationSample[] = {
    {"long"}, {"java.lang.Thread", true}, {"jdk.types.StackTrace", true}, {"java.lang.Class", true}, {"long"}};
constexpr Slot kMonitorEnter[] = {{"long"},
                                  {"long"},
                                  {"java.lang.Thread", true},
                                  {"jdk.types.StackTrace", true},
                                  {"java.lang.Class", true},
                                  {"java.lang.Thread", true},
                                  {"long"}};
constexpr Slot kThreadPark[] = {
    {"long"}, {"long"}, {"java.lang.Thread", true}, {"jdk.types.StackTrace", true}, {"java.lang.Class", true}, {"long"},
    {"long"}, {"long"}};
constexpr Slot kActiveSetting[] = {
    {"long"}, {"long"}, {"java.lang.Thread", true}, {"jdk.types.StackTrace", true}, {"long"}, {kString}, {kString}};

constexpr Layout kLayouts[] = {
    {"java.lang.Thread", kThread, Rest::kNumeric},
    {"java.lang.Class", kClass, Rest::kNumeric},
    {"jdk.types.Method", kMethod, Rest::kNone},
    {"jdk.types.StackTrace", kStackTrace, Rest::kNone},
    {"jdk.types.StackFrame", kStackFrame, Rest::kNone},
    {"jdk.types.Symbol", kSymbol, Rest::kNone},
    {"jdk.ExecutionSample", kExecutionSample, Rest::kNone},
    {"profiler.WallClockSample", kWallClockSample, Rest::kNone},
    {"jdk.ObjectAllocationSample", kAllocationSample, Rest::kNone},
    {"jdk.JavaMonitorEnter", kMonitorEnter, Rest::kNone},
    {"jdk.ThreadPark", kThreadPark, Rest::kNone},
    {"jdk.ActiveSetting", kActiveSetting, Rest::kNone},
};

// The pools the converter reads by their own code; any other pool it reads field by field, each
// as a string (a java.lang.String kept inline) or a varint.
bool read_by_own_code(std::string_view pool_type) {
  for (std::string_view t : {"java.lang.Thread", "java.lang.Class", "java.lang.String", "jdk.types.Symbol",
                             "jdk.types.Method", "jdk.types.StackTrace", "jdk.types.ChunkHeader"})
    if (t == pool_type) return true;
  return false;
}

// Collects the problems of a file: each distinct one once, with where it was first seen and how
// often.
class Problems {
 public:
  explicit Problems(LayoutReport* report) : report_(report) {}
  ~Problems() {
    for (const Seen& p : seen_) {
      if (report_->problems.size() == LayoutReport::kMaxProblems) break;
      std::string line = "chunk " + std::to_string(p.chunk) + " at byte " + std::to_string(p.at) + ": " + p.what;
      if (p.count > 1) line += " (" + std::to_string(p.count) + " times)";
      report_->problems.push_back(std::move(line));
    }
  }
  void add(int64_t chunk, uint64_t at, std::string what) {
    report_->problem_count++;
    for (Seen& p : seen_) {
      if (p.what == what) {
        p.count++;
        return;
      }
    }
    seen_.push_back({chunk, at, std::move(what), 1});
  }

 private:
  struct Seen {
    int64_t chunk;
    uint64_t at;
    std::string what;
    int64_t count;
  };
  LayoutReport* report_;
  std::vector<Seen> seen_;
};

// One chunk's rules (layout_check.hpp).
class ChunkCheck {
 public:
  ChunkCheck(const uint8_t* data, size_t size, uint64_t file_at, int64_t number, LayoutReport* report,
             Problems* problems)
      : data_(data), size_(size), file_at_(file_at), number_(number), report_(report), problems_(problems) {}

  void run() {
    const uint64_t pools_at = raw(data_ + 16, 8);
    const uint64_t metadata_at = raw(data_ + 24, 8);
    if (pools_at == 0) problem(16, "a chunk without constant pools (async-profiler's converter stops there)");
    if ((data_[67] & 1) == 0)
      problem(64, "a chunk header without the flag of compressed integers (JMC reads its integers as fixed-size)");
    if (metadata_at < kHeaderSize || metadata_at >= size_ || (pools_at != 0 && pools_at < kHeaderSize) ||
        pools_at >= size_) {
      problem(16, "a constant-pool or metadata offset outside the chunk");
      return;
    }
    if (!metadata(metadata_at)) return;
    metadata_at_ = metadata_at;
    declarations();
    size_t failed_at = 0;
    const char* what = nullptr;
    keys_ = pools_.build(md_, data_, size_, pools_at, &failed_at, &what);
    if (!keys_) problem(failed_at, what);
    for (uint64_t at = pools_at; keys_ && at != 0;) at = pool_event(at);
    events();
  }

 private:
  void problem(uint64_t at, std::string what) { problems_->add(number_, file_at_ + at, std::move(what)); }
  std::string name(uint32_t type) const { return std::string(md_.type(type).name); }

  bool metadata(uint64_t at) {
    Cursor c(data_, at, size_);
    const uint64_t event_size = c.varint();
    if (c.failed() || event_size == 0 || event_size > size_ - at) {
      problem(at, "a metadata event whose size runs past its chunk");
      return false;
    }
    size_t failed_at = 0;
    const char* what = nullptr;
    if (!md_.parse({reinterpret_cast<const char*>(data_ + at), event_size}, &failed_at, &what)) {
      problem(at + failed_at, std::string("the metadata: ") + what);
      return false;
    }
    for (uint32_t i = 0; i < md_.type_count(); i++)
      if (md_.type(i).name == kString) string_type_ = i;
    return true;
  }

  // "pooled java.lang.Thread", "int", "array of jdk.types.StackFrame"
  std::string describe(const Field& f) const {
    return (f.array ? "array of " : "") + std::string(f.pool ? "pooled " : "") + name(f.type);
  }
  static std::string describe(const Slot& s) {
    return (s.array ? "array of " : "") + std::string(s.pool ? "pooled " : "") +
           std::string(s.type.empty() ? "key" : s.type);
  }
  static bool numeric(Kind k) { return k == Kind::kByte || k == Kind::kVarint; }

  void declarations() {
    for (uint32_t i = 0; i < md_.type_count(); i++) {
      const Type& t = md_.type(i);
      const std::span<const Field> fields = md_.fields(t);
      for (size_t k = 0; k < fields.size(); k++) {
        const Kind kind = md_.type(fields[k].type).kind;
        if (fields[k].pool && (numeric(kind) || kind == Kind::kFloat || kind == Kind::kDouble))
          problem(metadata_at_,
                  name(i) + ": field " + std::to_string(k + 1) + " keeps a number in a pool (JMC refuses it)");
      }
      for (const Layout& layout : kLayouts)
        if (layout.type == t.name) check_layout(i, layout);
    }
  }

  void check_layout(uint32_t type, const Layout& layout) {
    const std::span<const Field> fields = md_.fields(md_.type(type));
    const std::string who = name(type) + ": ";
    const char* reader = "async-profiler's converter reads ";
    size_t k = 0;
    for (; k < layout.slots.size(); k++) {
      const Slot& s = layout.slots[k];
      if (k >= fields.size()) {
        if (!s.optional)
          problem(metadata_at_, who + "has " + std::to_string(fields.size()) + " fields; " + reader + "more");
        return;
      }
      const Field& f = fields[k];
      if ((!s.type.empty() && name(f.type) != s.type) || f.pool != s.pool || f.array != s.array)
        problem(metadata_at_,
                who + "field " + std::to_string(k + 1) + " is " + describe(f) + " where " + reader + describe(s));
    }
    for (; k < fields.size(); k++) {
      if (layout.rest == Rest::kNone) {
        problem(metadata_at_, who + "has " + std::to_string(fields.size()) + " fields; " + reader + "exactly " +
                                  std::to_string(layout.slots.size()) + " and goes on where they end");
        return;
      }
      if (!fields[k].pool && (fields[k].array || !numeric(md_.type(fields[k].type).kind)))
        problem(metadata_at_, who + "field " + std::to_string(k + 1) + " is " + describe(fields[k]) + " where " +
                                  reader + "a varint");
    }
  }

  // A pool the converter reads field by field: each field a string or a varint.
  void check_other_pool(uint32_t type) {
    const std::span<const Field> fields = md_.fields(md_.type(type));
    for (size_t k = 0; k < fields.size(); k++) {
      const Field& f = fields[k];
      const Kind kind = md_.type(f.type).kind;
      if (!f.pool && (f.array || (kind != Kind::kString && !numeric(kind))))
        problem(metadata_at_, name(type) + " (a pool): field " + std::to_string(k + 1) + " is " + describe(f) +
                                  " where async-profiler's converter reads a string or a varint");
    }
  }

  // The constant-pool event at AT; the offset of the one before it (0 for none).
  uint64_t pool_event(uint64_t at) {
    Cursor c(data_, at, size_);
    const uint64_t event_size = c.varint();
    c.limit(at + event_size);
    for (int i = 0; i < 3; i++) c.varint();  // type (1), start, duration
    const uint64_t back = 0 - c.varint();    // a signed delta to the previous one
    c.u8();                                  // flush
    const uint64_t pools = c.count();
    for (uint64_t p = 0; p < pools && !c.failed(); p++) {
      const size_t pool_at = c.pos();
      const uint32_t type = md_.find(c.varint());  // declared: PoolIndex::build checked
      const Type& t = md_.type(type);
      if (t.has_super_type)
        problem(pool_at, "a pool of " + name(type) +
                             ", declared with a superType (async-profiler's converter finds the types of pools "
                             "only among the classes declared without one; JMC refuses a pool of an event type)");
      if (checked_pools_.insert(type).second && !read_by_own_code(t.name)) check_other_pool(type);
      const uint64_t entries = c.count();
      report_->pools++;
      report_->entries += static_cast<int64_t>(entries);
      for (uint64_t e = 0; e < entries && !c.failed(); e++) {
        c.varint();  // key
        if (t.name == "jdk.types.Symbol" && c.left() > 0 && data_[c.pos()] != 3)
          problem(c.pos(), "a symbol in string encoding " + std::to_string(data_[c.pos()]) +
                               " (async-profiler's converter takes UTF-8 bytes, encoding 3, only)");
        value(type, c, 0);
      }
    }
    if (!c.failed() && c.pos() != at + event_size) problem(c.pos(), "a constant-pool event longer than its pools");
    if (c.failed()) problem(c.failed_at(), c.what());
    return back == 0 ? 0 : at - back;  // PoolIndex::build checked that it leads to an earlier event
  }

  void events() {
    for (size_t at = kHeaderSize; at < size_;) {
      Cursor c(data_, at, size_);
      const uint64_t event_size = c.varint();
      if (c.failed() || event_size == 0 || event_size > size_ - at) {
        problem(at, "an event whose size runs past its chunk");
        return;
      }
      c.limit(at + event_size);
      const uint64_t id = c.varint();
      if (id > 1) event(id, c);
      at += event_size;
    }
  }

  void event(uint64_t id, Cursor& c) {
    const uint32_t type = md_.find(id);
    if (type == Metadata::kNoType || !md_.type(type).event) {
      problem(c.pos(), "an event of type id " + std::to_string(id) + ", which the metadata declares as no event");
      return;
    }
    report_->events++;
    const Type& t = md_.type(type);
    for (const Field& f : md_.fields(t)) {
      if (t.setting && f.role == Role::kId && !f.pool && !f.array) {
        // JMC reads the id as an event type and fails on one that the chunk does not declare.
        const size_t at = c.pos();
        const uint64_t of = c.varint();
        const uint32_t of_type = md_.find(of);
        if (of_type == Metadata::kNoType || !md_.type(of_type).event)
          problem(at, "a jdk.ActiveSetting of event type id " + std::to_string(of) +
                          ", which the chunk declares as no event (JDK Mission Control reads it as one)");
        continue;
      }
      field(f, c, 0, false);
    }
    if (c.failed()) {
      problem(c.failed_at(), name(type) + ": " + c.what());
    } else if (c.left() != 0) {
      problem(c.pos(), "a " + name(type) + " event whose fields end " + std::to_string(c.left()) +
                           " bytes before its size says");
    }
  }

  void value(uint32_t type, Cursor& c, int depth) {
    if (depth > reader::kMaxDepth) {
      c.fail("values nested too deep");
      return;
    }
    const Type& t = md_.type(type);
    if (t.kind != Kind::kComposite) {
      field(Field{type, t.kind}, c, depth, false);
      return;
    }
    const bool frame = t.name == "jdk.types.StackFrame";
    for (const Field& f : md_.fields(t)) {
      field(f, c, depth, frame && f.role == Role::kType);
      if (c.failed()) return;
    }
  }

  // A value of field F. ONE_BYTE: a frame's type key, which the converter reads as one raw byte.
  void field(const Field& f, Cursor& c, int depth, bool one_byte) {
    const uint64_t n = f.array ? c.count() : 1;
    const Type& t = md_.type(f.type);
    for (uint64_t i = 0; i < n && !c.failed(); i++) {
      const size_t at = c.pos();
      if (f.pool) {
        key(f.type, c.varint(), at);
        if (one_byte && c.pos() - at != 1)
          problem(at, "a frame type key of more than one byte (async-profiler's converter reads one byte)");
        continue;
      }
      switch (t.kind) {
        case Kind::kByte:
          if (c.u8() > 1 && t.name == "boolean") problem(at, "a boolean neither 0 nor 1");
          break;
        case Kind::kVarint: {
          const uint64_t v = c.varint();
          integer(t.name, v, c.pos() - at, at);
          break;
        }
        case Kind::kFloat:
          c.skip(4);
          break;
        case Kind::kDouble:
          c.skip(8);
          break;
        case Kind::kString:
          string(c);
          break;
        case Kind::kComposite:
          value(f.type, c, depth + 1);
          break;
        case Kind::kNone:
          c.fail("a value of a type that has no fields");
          break;
      }
    }
  }

  // An int, short or char: 32 bits at most in at most five bytes, as HotSpot writes them.
  void integer(std::string_view type, uint64_t v, size_t bytes, size_t at) {
    if (type == "long") return;
    const uint64_t max = type == "int" ? 0xffffffffu : 0xffffu;
    if (bytes > 5 || v > max)
      problem(at, "an " + std::string(type) + " written in " + std::to_string(bytes) +
                      " bytes (a 32-bit varint reader, as async-profiler's converter's, loses its place on it)");
  }

  void string(Cursor& c) {
    const size_t at = c.pos();
    const uint8_t encoding = c.u8();
    switch (encoding) {
      case 0:
      case 1:
        return;
      case 2:
        key(string_type_, c.varint(), at);
        return;
      case 3:
      case 5:
        c.skip(c.count());
        return;
      case 4:
        for (uint64_t n = c.count(); n > 0 && !c.failed(); n--) c.varint();
        return;
      default:
        if (!c.failed()) problem(at, "a string of unknown encoding " + std::to_string(encoding));
        c.fail("a string of unknown encoding");
    }
  }

  // A pool key of TYPE: 0 (null) or an entry of the chunk's pools.
  void key(uint32_t type, uint64_t k, size_t at) {
    if (!keys_ || k == 0 || type == Metadata::kNoType) return;
    if (pools_.find(type, k) == PoolIndex::kNotFound)
      problem(at, "a key of " + name(type) + " that no pool of the chunk holds (readers take it for null)");
  }

  const uint8_t* data_;
  size_t size_;
  uint64_t file_at_;
  int64_t number_;
  LayoutReport* report_;
  Problems* problems_;
  Metadata md_;
  PoolIndex pools_;
  uint64_t metadata_at_ = 0;  // where the declarations are, for their problems
  bool keys_ = false;         // the pools are indexed: keys can be checked
  uint32_t string_type_ = Metadata::kNoType;
  std::set<uint32_t> checked_pools_;
};

}  // namespace

void check_layout(std::string_view bytes, LayoutReport* report) {
  Problems problems(report);
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  for (uint64_t at = 0; at < bytes.size();) {
    const int64_t number = ++report->chunks;
    const size_t left = bytes.size() - at;
    if (left < kHeaderSize || std::memcmp(data + at, "FLR\0", 4) != 0 || raw(data + at + 4, 2) != 2) {
      problems.add(number, at, "no chunk header of format 2 (a file cut short, or no recording)");
      return;
    }
    const uint64_t size = raw(data + at + 8, 8);
    if (size < kHeaderSize || size > left) {
      problems.add(number, at + 8,
                   "a chunk size of " + std::to_string(size) + " where " + std::to_string(left) + " bytes are left");
      return;
    }
    ChunkCheck(data + at, size, at, number, report, &problems).run();
    at += size;
  }
}

Error check_layout_file(const std::string& path, LayoutReport* report) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error("cannot read " + path + ": " + std::strerror(errno));
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Error("cannot read " + path + ": " + std::strerror(errno));
  check_layout(bytes, report);
  return Error::ok();
}

}  // namespace jvmkit::jfr
