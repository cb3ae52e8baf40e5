#include "jfr/reader.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>
#include <fstream>
#include <map>
#include <set>

#include <random>
#include <string>
#include <vector>

#include "jfr/buffer.hpp"
#include "jfr/chunk_writer.hpp"
#include "jfr/metadata.hpp"

namespace jvmkit::jfr {
namespace {

// --- What a test reads back: a copy of each event, whose views die with the callback ---

struct Frame {
  std::string klass, method, descriptor;
  int32_t line = 0;
  int32_t bci = -1;
  std::string type;
  bool operator==(const Frame&) const = default;
};

struct Event {
  std::string type;
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  std::string thread;  // "OS_TID/JAVA_TID/NAME", "" for none
  std::vector<Frame> frames;
  bool truncated = false;
  std::string object_class;
  int64_t weight = 0;
  std::string event_name, setting_type, setting_name, setting_value;
  bool operator==(const Event&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Event& e) {
  out << e.type << " start=" << e.start_ns << " duration=" << e.duration_ns << " thread=" << e.thread
      << " class=" << e.object_class << " weight=" << e.weight << " event=" << e.event_name << " setting=("
      << e.setting_type << "," << e.setting_name << "," << e.setting_value << ") truncated=" << e.truncated;
  for (const Frame& f : e.frames)
    out << "\n  " << f.klass << "." << f.method << f.descriptor << " " << f.line << " " << f.bci << " " << f.type;
  return out;
}

std::string thread_text(int64_t os_tid, int64_t java_tid, std::string_view name) {
  return std::to_string(os_tid) + "/" + std::to_string(java_tid) + "/" + std::string(name);
}

Event copy(const ReadEvent& e) {
  Event out{std::string(e.type), e.start_ns, e.duration_ns};
  if (e.thread != nullptr) out.thread = thread_text(e.thread->os_tid, e.thread->java_tid, e.thread->name);
  for (const ReadFrame& f : e.frames) {
    out.frames.push_back({std::string(f.class_name), std::string(f.method), std::string(f.descriptor), f.line, f.bci,
                          std::string(f.type)});
  }
  out.truncated = e.truncated;
  out.object_class = e.object_class;
  out.weight = e.weight;
  out.event_name = e.event_name;
  out.setting_type = e.setting_type;
  out.setting_name = e.setting_name;
  out.setting_value = e.setting_value;
  return out;
}

struct Read {
  Error error;
  std::vector<Event> events;
  ReadStats stats;
};

std::string temp_file(const std::string& name) {
  return testing::TempDir() + "jfr_reader_" + std::to_string(getpid()) + "_" + name;
}

Read read_file(const std::string& path, size_t max_chunk = size_t{1} << 31, size_t stop_after = SIZE_MAX) {
  Read r;
  r.error = read_recording(
      path,
      [&](const ReadEvent& e) {
        r.events.push_back(copy(e));
        return r.events.size() < stop_after;
      },
      &r.stats, max_chunk);
  return r;
}

// A file in memory, named by its /proc path: the tests that read thousands of variants of a file
// do not wait for a disk.
class MemoryFile {
 public:
  MemoryFile() : fd_(memfd_create("jfr_reader_test", MFD_CLOEXEC)), path_("/proc/self/fd/" + std::to_string(fd_)) {}
  ~MemoryFile() { close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  const std::string& path(std::string_view bytes) const {
    EXPECT_EQ(ftruncate(fd_, 0), 0);
    EXPECT_EQ(pwrite(fd_, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
    return path_;
  }

 private:
  int fd_;
  std::string path_;
};

Read read_bytes(std::string_view bytes, size_t max_chunk = size_t{1} << 31, size_t stop_after = SIZE_MAX) {
  const MemoryFile file;
  return read_file(file.path(bytes), max_chunk, stop_after);
}

// The byte offset an error names ("... at byte N"), -1 when it names none.
int64_t error_offset(const Error& e) {
  const std::string& m = e.message();
  const size_t at = m.rfind("at byte ");
  if (at == std::string::npos) return -1;
  return std::stoll(m.substr(at + 8));
}

// --- Recordings written by ChunkWriter, and the events they hold ---

constexpr int64_t kStartNanos = 1'764'000'000'123'456'789;
constexpr int64_t kStartTicks = 5'000'000'000;

struct FrameSpec {
  std::string klass;  // "" for code outside any class
  std::string method, descriptor;
  int32_t line, bci;
  FrameKind kind;
};

struct Sample {
  std::string bytes;
  std::vector<Event> events;
  std::vector<size_t> chunk_ends;  // the file offset after each chunk
  std::vector<size_t> chunk_events;
};

class Recorder {
 public:
  Recorder(ChunkWriter* w, std::vector<Event>* events) : w_(w), events_(events) {}

  uint64_t thread(int64_t os_tid, std::string os_name, int64_t java_tid, std::string java_name, std::string* text) {
    *text = thread_text(os_tid, java_tid, java_tid < 0 || java_name.empty() ? os_name : java_name);
    return w_->add_thread({os_tid, os_name, java_tid, java_name, false});
  }

  uint64_t stack(const std::vector<FrameSpec>& specs, bool truncated, std::vector<Frame>* frames) {
    std::vector<StackFrame> out;
    frames->clear();
    for (const FrameSpec& f : specs) {
      const uint64_t klass = f.klass.empty() ? 0 : w_->add_class(f.klass);
      out.push_back({w_->add_method(klass, f.method, f.descriptor), f.line, f.bci, f.kind});
      frames->push_back(
          {f.klass, f.method, f.descriptor.empty() ? "()" : f.descriptor, f.line, f.bci, frame_kind_name(f.kind)});
    }
    return w_->add_stack(out, truncated);
  }

  Event& expect(const std::string& type, int64_t ticks, int64_t duration, const std::string& thread,
                const std::vector<Frame>& frames, bool truncated) {
    events_->push_back({type, kStartNanos + ticks - kStartTicks, duration, thread, frames, truncated});
    return events_->back();
  }

 private:
  ChunkWriter* w_;
  std::vector<Event>* events_;
};

// One chunk of every event type; the second chunk adds its threads in another order, so that its
// keys name other things than the first chunk's.
std::string sample_chunk(int64_t start, int index, uint64_t* next_key, std::vector<Event>* events) {
  ChunkWriter w(kStartNanos + start - kStartTicks, start, *next_key);
  Recorder r(&w, events);
  std::string main_text, worker_text, gc_text;
  uint64_t main = 0, worker = 0, gc = 0;
  if (index == 0) {
    main = r.thread(4242, "java", 1, "main", &main_text);
    worker = r.thread(4243, "pool-1-thread-1", 23, "Ünïcødé ☃ worker", &worker_text);
    gc = r.thread(4250, "G1 Conc#0", -1, "", &gc_text);
  } else {
    gc = r.thread(4250, "G1 Conc#0", -1, "", &gc_text);
    worker = r.thread(4243, "pool-1-thread-1", 23, "Ünïcødé ☃ worker", &worker_text);
    main = r.thread(4242, "java", 1, "main", &main_text);
  }
  std::vector<Frame> java, mixed, deep, native;
  const uint64_t java_stack = r.stack({{"java.lang.String", "hashCode", "()I", 1503, 10, FrameKind::kInlined},
                                       {"java.util.HashMap", "hash", "(Ljava/lang/Object;)I", 338, 9, FrameKind::kJit},
                                       {"demo.Main", "main", "([Ljava/lang/String;)V", 12, 4, FrameKind::kInterpreted}},
                                      false, &java);
  const uint64_t mixed_stack = r.stack({{"", "__memmove_avx_unaligned_erms", "", 0, -1, FrameKind::kCpp},
                                        {"", "do_syscall_64", "", 0, -1, FrameKind::kKernel},
                                        {"java.lang.Object", "hashCode", "()I", 0, -1, FrameKind::kNative},
                                        {"Ünïcødé.Клас", "méthode", "()V", 7, 0, FrameKind::kJit}},
                                       false, &mixed);
  std::vector<FrameSpec> deep_specs;
  for (int i = 0; i < 300; i++)
    deep_specs.push_back({"demo.Recursion", "down", "(I)I", 10 + i % 3, i % 7, FrameKind::kJit});
  const uint64_t deep_stack = r.stack(deep_specs, true, &deep);
  const uint64_t native_stack =
      r.stack({{"", "G1ConcurrentMark::mark_from_roots", "", 0, -1, FrameKind::kCpp}}, false, &native);

  int64_t t = start + 1000 + index;
  w.execution_sample(t, main, java_stack);
  r.expect("jdk.ExecutionSample", t, 0, main_text, java, false);
  t += 1'000'000;
  w.execution_sample(t, worker, mixed_stack);
  r.expect("jdk.ExecutionSample", t, 0, worker_text, mixed, false);
  t += 7;
  w.execution_sample(t, gc, native_stack);
  r.expect("jdk.ExecutionSample", t, 0, gc_text, native, false);
  t += 1'000'000;
  w.wall_clock_sample(t, main, deep_stack);
  r.expect("profiler.WallClockSample", t, 0, main_text, deep, true);
  t += 1'000'000;
  w.perf_event_sample(t, worker, java_stack, "page-faults", 1000);
  Event& perf = r.expect("jvmkit.PerfEventSample", t, 0, worker_text, java, false);
  perf.event_name = "page-faults";
  perf.weight = 1000;
  t += 1'000'000;
  w.allocation_sample(t, main, java_stack, w.add_class("int[]"), 524'288);
  Event& alloc = r.expect("jdk.ObjectAllocationSample", t, 0, main_text, java, false);
  alloc.object_class = "int[]";
  alloc.weight = 524'288;
  t += 1'000'000;
  w.monitor_enter(t, 2'500'000, worker, java_stack, w.add_class("java.lang.Object"));
  r.expect("jdk.JavaMonitorEnter", t, 2'500'000, worker_text, java, false).object_class = "java.lang.Object";
  t += 1'000'000;
  w.thread_park(t, 40'000, worker, java_stack, w.add_class("java.util.concurrent.locks.ReentrantLock$NonfairSync"));
  r.expect("jdk.ThreadPark", t, 40'000, worker_text, java, false).object_class =
      "java.util.concurrent.locks.ReentrantLock$NonfairSync";
  t += 1'000'000;
  w.thread_park(t, 50'000, main, java_stack, 0);  // no blocker: a null class
  r.expect("jdk.ThreadPark", t, 50'000, main_text, java, false);
  if (index == 0) {
    w.active_recording(start, {1, "jvmkit", "/tmp/x.jfr", 1000, 1'764'000'000'123, 0});
    r.expect("jdk.ActiveRecording", start, 0, "", {}, false);
    w.active_setting(start, kExecutionSample, "period", "10 ms");
    Event& period = r.expect("jdk.ActiveSetting", start, 0, "", {}, false);
    period.setting_type = "jdk.ExecutionSample";
    period.setting_name = "period";
    period.setting_value = "10 ms";
    w.active_setting(start, 0, "jvmkit.cstack", "native");
    Event& cstack = r.expect("jdk.ActiveSetting", start, 0, "", {}, false);
    cstack.setting_type = "jdk.ActiveRecording";  // the recording's own settings
    cstack.setting_name = "jvmkit.cstack";
    cstack.setting_value = "native";
  }
  std::string bytes = w.finish(t + 1, index == 1);
  *next_key = w.next_key();
  return bytes;
}

Sample two_chunks() {
  Sample s;
  uint64_t next_key = 1;
  for (int i = 0; i < 2; i++) {
    const size_t before = s.events.size();
    s.bytes += sample_chunk(kStartTicks + i * 2'000'000'000, i, &next_key, &s.events);
    s.chunk_ends.push_back(s.bytes.size());
    s.chunk_events.push_back(s.events.size() - before);
  }
  return s;
}

TEST(JfrReader, ReadsBackEveryEventAsWritten) {
  const Sample s = two_chunks();
  const Read r = read_bytes(s.bytes);
  ASSERT_FALSE(r.error) << r.error.message();
  ASSERT_EQ(r.events.size(), s.events.size());
  for (size_t i = 0; i < s.events.size(); i++) EXPECT_EQ(r.events[i], s.events[i]) << "event " << i;
  EXPECT_EQ(r.stats.chunks, 2);
  EXPECT_EQ(r.stats.events, static_cast<int64_t>(s.events.size()));
  EXPECT_EQ(r.stats.bytes, static_cast<int64_t>(s.bytes.size()));
  EXPECT_EQ(r.stats.max_chunk, std::max(s.chunk_ends[0], s.chunk_ends[1] - s.chunk_ends[0]));
}

// Events of one chunk with the same stack have one stack id; other stacks, and other chunks, say so.
TEST(JfrReader, NamesEachStackOfAChunkByOneId) {
  const Sample s = two_chunks();
  std::map<std::pair<uint64_t, uint64_t>, std::string> stacks;  // (chunk, id) -> frames
  std::set<uint64_t> chunks;
  std::ofstream(temp_file("stack_ids.jfr"), std::ios::binary) << s.bytes;
  int with_stacks = 0;
  Error e = read_recording(temp_file("stack_ids.jfr"), [&](const ReadEvent& ev) {
    chunks.insert(ev.chunk);
    if (ev.frames.empty()) {
      EXPECT_EQ(ev.stack_id, 0u) << ev.type;
      return true;
    }
    with_stacks++;
    std::string text;
    for (const ReadFrame& f : ev.frames) text += std::string(f.class_name) + "." + std::string(f.method) + ";";
    auto [it, added] = stacks.try_emplace({ev.chunk, ev.stack_id}, text);
    EXPECT_EQ(it->second, text) << "stack id " << ev.stack_id << " names two stacks";
    return true;
  });
  ASSERT_FALSE(e) << e.message();
  EXPECT_EQ(chunks.size(), 2u);
  EXPECT_GT(with_stacks, static_cast<int>(stacks.size()));  // some stacks recur within a chunk
}

TEST(JfrReader, StopsWhenTheCallbackSaysSo) {
  const Sample s = two_chunks();
  const Read r = read_bytes(s.bytes, size_t{1} << 31, 3);
  EXPECT_FALSE(r.error) << r.error.message();
  ASSERT_EQ(r.events.size(), 3u);
  EXPECT_EQ(r.stats.events, 3);
  EXPECT_EQ(r.events[2], s.events[2]);
}

TEST(JfrReader, RefusesAChunkLargerThanTheLimit) {
  const Sample s = two_chunks();
  const size_t first = s.chunk_ends[0], second = s.chunk_ends[1] - first;
  Read r = read_bytes(s.bytes, std::min(first, second) - 1);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error.message().find("more than the limit"), std::string::npos) << r.error.message();
  // The limit is what a chunk may hold, not the file: a chunk of its size is read.
  r = read_bytes(s.bytes, first);
  if (second > first) {
    ASSERT_TRUE(r.error);
    EXPECT_NE(r.error.message().find("chunk 2 at byte " + std::to_string(first)), std::string::npos)
        << r.error.message();
    EXPECT_EQ(r.events.size(), s.chunk_events[0]);
    EXPECT_EQ(r.stats.max_chunk, first);
  } else {
    EXPECT_FALSE(r.error) << r.error.message();
  }
}

TEST(JfrReader, NamesFilesItCannotRead) {
  const Read missing = read_file(temp_file("missing.jfr"));
  ASSERT_TRUE(missing.error);
  EXPECT_EQ(missing.error.message(), "cannot read " + temp_file("missing.jfr") + ": No such file or directory");
  for (const std::string& bytes : {std::string(), std::string("not a recording at all"), std::string("FX")}) {
    const Read r = read_bytes(bytes);
    ASSERT_TRUE(r.error);
    EXPECT_NE(r.error.message().find(": not a Flight Recorder file (at byte 0)"), std::string::npos)
        << r.error.message();
  }
  for (const std::string& bytes : {std::string("FL"), std::string("FLR\0\0\2", 6)}) {
    const Read r = read_bytes(bytes);
    ASSERT_TRUE(r.error);
    EXPECT_NE(r.error.message().find("cut short: chunk 1 at byte 0 has " + std::to_string(bytes.size()) +
                                     " of the 68 bytes of its header"),
              std::string::npos)
        << r.error.message();
  }
}

// A JVM killed while it wrote a chunk: the chunks before are read whole, the cut one not at all.
TEST(JfrReader, AFileCutShortGivesTheWholeChunksBeforeTheCut) {
  const Sample s = two_chunks();
  const size_t first = s.chunk_ends[0];
  const std::vector<Event> first_events(s.events.begin(), s.events.begin() + static_cast<long>(s.chunk_events[0]));
  std::vector<size_t> cuts;
  // Every byte of the second chunk's header and what follows it, then every 7th byte: past its
  // header a cut is always the same case (the chunk claims more bytes than the file has), and a
  // cut at every byte took 10 s, 50 s under the sanitizers.
  for (size_t cut = first; cut < s.bytes.size(); cut += cut < first + 256 ? 1 : 7) cuts.push_back(cut);
  for (size_t cut = 0; cut < first; cut += cut < 80 ? 1 : 97) cuts.push_back(cut);
  const MemoryFile file;
  for (size_t cut : cuts) {
    const Read r = read_file(file.path(std::string_view(s.bytes).substr(0, cut)));
    if (cut == first) {  // a file of one whole chunk
      EXPECT_FALSE(r.error) << r.error.message();
      EXPECT_EQ(r.events, first_events);
      continue;
    }
    ASSERT_TRUE(r.error) << "cut at " << cut;
    const int64_t at = error_offset(r.error);
    EXPECT_GE(at, 0) << r.error.message();
    EXPECT_LE(at, static_cast<int64_t>(cut)) << r.error.message();
    if (cut > first) {
      ASSERT_EQ(r.events, first_events) << "cut at " << cut << ": " << r.error.message();
      EXPECT_EQ(r.stats.chunks, 1);
      EXPECT_NE(r.error.message().find("cut short: chunk 2 at byte " + std::to_string(first)), std::string::npos)
          << r.error.message();
    } else {
      EXPECT_TRUE(r.events.empty()) << "cut at " << cut;
    }
  }
}

TEST(JfrReader, ConvertsTicksAtTheChunksRate) {
  ChunkWriter w(kStartNanos, 1'000'000'000'000, 1);
  const uint64_t thread = w.add_thread({7, "t", 3, "t", false});
  // 4.5 * 10^9 ticks after the start at 3 GHz: 1.5 s; a wait of 3 * 10^9 ticks: 1 s.
  w.thread_park(1'004'500'000'000, 3'000'000'000, thread, 0, 0);
  w.execution_sample(1'000'000'000'001, thread, 0);
  w.execution_sample(999'999'999'999, thread, 0);  // before the chunk's start: times go back too
  std::string bytes = w.finish(1'010'000'000'000, true);
  Buffer tps;
  tps.raw64(3'000'000'000);
  bytes.replace(56, 8, tps.bytes());
  const Read r = read_bytes(bytes);
  ASSERT_FALSE(r.error) << r.error.message();
  ASSERT_EQ(r.events.size(), 3u);
  EXPECT_EQ(r.events[0].start_ns, kStartNanos + 1'500'000'000);
  EXPECT_EQ(r.events[0].duration_ns, 1'000'000'000);
  EXPECT_EQ(r.events[1].start_ns, kStartNanos);  // a third of a nanosecond
  EXPECT_EQ(r.events[2].start_ns, kStartNanos);
  EXPECT_EQ(r.events[0].thread, "7/3/t");
  EXPECT_TRUE(r.events[0].frames.empty());
}

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
void utf16_string(Buffer& out, const std::u16string& s) {
  out.u8(4);
  out.varint(s.size());
  for (char16_t c : s) out.varint(c);
}

void latin1_string(Buffer& out, std::string_view bytes) {
  out.u8(5);
  out.varint(bytes.size());
  out.append(bytes);
}

std::u16string ascii16(std::string_view s) { return std::u16string(s.begin(), s.end()); }

// The metadata event for TYPES, its string table in UTF-16 (encoding 4).
std::string metadata_event(const std::vector<MType>& types) {
  std::vector<std::string> strings;
  auto index = [&](const std::string& s) {
    for (size_t i = 0; i < strings.size(); i++)
      if (strings[i] == s) return i;
    strings.push_back(s);
    return strings.size() - 1;
  };
  Buffer tree;
  using Attributes = std::vector<std::pair<std::string, std::string>>;
  auto element = [&](const std::string& name, const Attributes& attributes, size_t children) {
    tree.varint(index(name));
    tree.varint(attributes.size());
    for (const auto& [k, v] : attributes) {
      tree.varint(index(k));
      tree.varint(index(v));
    }
    tree.varint(children);
  };
  element("root", {}, 2);
  element("metadata", {}, types.size());
  for (const MType& t : types) {
    Attributes a = {{"name", t.name}, {"id", std::to_string(t.id)}};
    if (!t.super_type.empty()) a.emplace_back("superType", t.super_type);
    if (t.simple) a.emplace_back("simpleType", "true");
    element("class", a, t.fields.size() + 1);
    element("annotation", {{"class", "13"}, {"value", "a label"}}, 0);
    for (const MField& f : t.fields) {
      Attributes fa = {{"name", f.name}, {"class", std::to_string(f.type)}};
      if (f.pool) fa.emplace_back("constantPool", "true");
      if (f.array) fa.emplace_back("dimension", "1");
      element("field", fa, 1);
      element("annotation", {{"class", "13"}, {"value", "Label"}}, 0);
    }
  }
  element("region", {{"locale", "en_US"}, {"gmtOffset", "0"}}, 0);
  Buffer body;
  body.varint(0);
  body.varint(0);
  body.varint(0);
  body.varint(7);
  body.varint(strings.size());
  for (const std::string& s : strings) utf16_string(body, ascii16(s));
  body.append(tree.bytes());
  Buffer out;
  out.sized(body.bytes());
  return out.take();
}

// A chunk laid out by hand: events and constant-pool events in any order, the metadata last.
class RawChunk {
 public:
  void event(const Buffer& body) { body_.sized(body.bytes()); }
  // A constant-pool event of POOLS pools, whose bytes (type id, count, entries...) are ENTRIES.
  void pools(size_t pools, const Buffer& entries) {
    const uint64_t at = 68 + body_.size();
    Buffer b;
    b.varint(1);
    b.varint(0);
    b.varint(0);
    b.varint_signed(last_pools_ == 0 ? 0 : static_cast<int64_t>(last_pools_) - static_cast<int64_t>(at));
    b.u8(0);
    b.varint(pools);
    b.append(entries.bytes());
    body_.sized(b.bytes());
    last_pools_ = at;
  }
  // Bytes as they are: a constant-pool event (when POOLS) or an event of any size field.
  void raw(std::string_view bytes, bool pools) {
    if (pools) last_pools_ = 68 + body_.size();
    body_.append(bytes);
  }
  std::string finish(const std::string& metadata, int64_t start_ticks, int64_t ticks_per_second) {
    Buffer out;
    out.append(std::string_view("FLR\0", 4));
    out.raw16(2);
    out.raw16(1);
    out.raw64(68 + body_.size() + metadata.size());
    out.raw64(last_pools_);
    out.raw64(68 + body_.size());
    out.raw64(kStartNanos);
    out.raw64(0);
    out.raw64(static_cast<uint64_t>(start_ticks));
    out.raw64(static_cast<uint64_t>(ticks_per_second));
    out.raw32(0);
    out.append(body_.bytes());
    out.append(metadata);
    return out.take();
  }

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

std::vector<MType> jdk_like_types() {
  return {
      {tBoolean, "boolean"},
      {tChar, "char"},
      {tFloat, "float"},
      {tDouble, "double"},
      {tByte, "byte"},
      {tShort, "short"},
      {tInt, "int"},
      {tLong, "long"},
      {tString, "java.lang.String"},
      {tGroup, "java.lang.ThreadGroup", "", false, {{"parent", tGroup, true}, {"name", tString}}},
      {tThread,
       "java.lang.Thread",
       "",
       false,
       {{"osName", tString},
        {"osThreadId", tLong},
        {"javaName", tString},
        {"javaThreadId", tLong},
        {"group", tGroup, true},
        {"virtual", tBoolean}}},
      {tSymbol, "jdk.types.Symbol", "", true, {{"string", tString}}},
      {tLoader, "jdk.types.ClassLoader", "", false, {{"type", tClass, true}, {"name", tSymbol, true}}},
      {tClass,
       "java.lang.Class",
       "",
       false,
       {{"classLoader", tLoader, true},
        {"name", tSymbol, true},
        {"package", tPackage, true},
        {"modifiers", tInt},
        {"hidden", tBoolean}}},
      {tPackage, "jdk.types.Package", "", false, {{"name", tSymbol, true}}},
      {tMethod,
       "jdk.types.Method",
       "",
       false,
       {{"type", tClass, true},
        {"name", tSymbol, true},
        {"descriptor", tSymbol, true},
        {"modifiers", tInt},
        {"hidden", tBoolean}}},
      {tFrameType, "jdk.types.FrameType", "", true, {{"description", tString}}},
      {tFrame,
       "jdk.types.StackFrame",
       "",
       false,
       {{"method", tMethod, true}, {"lineNumber", tInt}, {"bytecodeIndex", tInt}, {"type", tFrameType, true}}},
      {tStack, "jdk.types.StackTrace", "", false, {{"truncated", tBoolean}, {"frames", tFrame, false, true}}},
      {tChunkHeader, "jdk.types.ChunkHeader", "", false, {{"payload", tByte, false, true}}},
      {tPair, "test.Pair", "", false, {{"a", tFloat}, {"b", tDouble}}},
      {tEverything,
       "test.Everything",
       "jdk.jfr.Event",
       false,
       {{"startTime", tLong},
        {"duration", tLong},
        {"eventThread", tThread, true},
        {"stackTrace", tStack, true},
        {"b", tByte},
        {"s", tShort},
        {"c", tChar},
        {"f", tFloat},
        {"d", tDouble},
        {"flags", tBoolean, false, true},
        {"pair", tPair},
        {"pairs", tPair, false, true},
        {"objectClass", tClass, true},
        {"text", tString},
        {"weight", tLong},
        {"tail", tString}}},
      {tSample,
       "jdk.ExecutionSample",
       "jdk.jfr.Event",
       false,
       {{"startTime", tLong}, {"sampledThread", tThread, true}, {"stackTrace", tStack, true}}},
      {tSetting,
       "jdk.ActiveSetting",
       "jdk.jfr.Event",
       false,
       {{"startTime", tLong},
        {"duration", tLong},
        {"eventThread", tThread, true},
        {"stackTrace", tStack, true},
        {"id", tLong},
        {"name", tString},
        {"value", tString}}},
      {tNotAnEvent, "test.NotAnEvent", "", false, {{"x", tInt}}},
  };
}

constexpr int64_t kTicks = 1'000'000;

// A chunk of the JDK's layout: other type ids, fields jvmkit does not write, pools in two
// constant-pool events, every string encoding.
std::string jdk_like_chunk() {
  RawChunk chunk;
  // Events before the pools they refer to, between them and after them.
  Buffer e;
  e.varint(tSample);
  e.varint(kTicks + 10);
  e.varint(501);  // sampledThread
  e.varint(601);  // stackTrace
  chunk.event(e);

  // The older pools: symbols (Latin-1, UTF-16, UTF-8), packages, class loaders.
  Buffer older;
  older.varint(tSymbol);
  older.varint(6);
  older.varint(1001);
  older.string("java/lang/String");
  older.varint(1002);
  latin1_string(older, "caf\xe9");
  older.varint(1003);
  utf16_string(older, u"(Ljava/lang/Object;)I");
  older.varint(1004);
  older.string("demo/Main");
  older.varint(1005);
  older.string("main");
  older.varint(1006);
  older.string("java/lang");
  older.varint(tPackage);
  older.varint(1);
  older.varint(1101);
  older.varint(1006);
  older.varint(tLoader);
  older.varint(1);
  older.varint(1201);
  older.varint(0);
  older.varint(1005);
  chunk.pools(3, older);

  e = Buffer();
  e.varint(tNotAnEvent);  // a declared type that is no event: skipped
  e.varint(5);
  chunk.event(e);
  e = Buffer();
  e.varint(999);  // an undeclared type: skipped
  e.varint(1);
  e.varint(2);
  chunk.event(e);
  e = Buffer();
  e.varint(tEverything);
  e.varint(kTicks + 20);
  e.varint(5);
  e.varint(502);
  e.varint(602);
  e.u8(0xfe);                   // b
  e.varint_signed(-3);          // s
  e.varint(u'é');               // c
  e.raw32(0x3f800000);          // f
  e.raw64(0x4000000000000000);  // d
  e.varint(3);                  // flags
  e.append(std::string_view("\x01\x00\x01", 3));
  e.raw32(0);  // pair
  e.raw64(0);
  e.varint(2);  // pairs
  e.append(std::string(24, '\x80'));
  e.varint(301);  // objectClass
  e.u8(2);        // text: from the pool of strings
  e.varint(2001);
  e.varint(123456789);  // weight
  e.string("the end");
  chunk.event(e);

  // The newer pools: threads (names in three encodings), classes, methods, stacks, strings.
  Buffer newer;
  newer.varint(tThread);
  newer.varint(2);
  newer.varint(501);
  latin1_string(newer, "caf\xe9 thread");
  newer.varint(77);
  utf16_string(newer, u"worker \U0001F600");
  newer.varint(12);
  newer.varint(0);
  newer.u8(0);
  newer.varint(502);
  newer.null_string();
  newer.varint(78);
  newer.u8(2);
  newer.varint(2002);
  newer.varint(13);
  newer.varint(401);
  newer.u8(1);
  newer.varint(tGroup);
  newer.varint(1);
  newer.varint(401);
  newer.varint(0);
  newer.string("main");
  newer.varint(tClass);
  newer.varint(2);
  newer.varint(301);
  newer.varint(1201);
  newer.varint(1001);
  newer.varint(1101);
  newer.varint(17);
  newer.u8(0);
  newer.varint(302);
  newer.varint(0);
  newer.varint(1004);
  newer.varint(0);
  newer.varint(1);
  newer.u8(0);
  newer.varint(tMethod);
  newer.varint(2);
  newer.varint(701);
  newer.varint(301);
  newer.varint(1002);
  newer.varint(1003);
  newer.varint(1);
  newer.u8(0);
  newer.varint(702);
  newer.varint(302);
  newer.varint(1005);
  newer.varint(0);  // no descriptor
  newer.varint(9);
  newer.u8(1);
  newer.varint(tFrameType);
  newer.varint(2);
  newer.varint(1);
  newer.string("JIT compiled");
  newer.varint(2);
  latin1_string(newer, "Interpreted");
  newer.varint(tStack);
  newer.varint(2);
  newer.varint(601);
  newer.u8(1);
  newer.varint(2);
  newer.varint(701);
  newer.varint(42);
  newer.varint(7);
  newer.varint(1);
  newer.varint(702);
  newer.varint(3);
  newer.varint(0);
  newer.varint(2);
  newer.varint(602);
  newer.u8(0);
  newer.varint(0);
  newer.varint(tChunkHeader);
  newer.varint(1);
  newer.varint(1);
  newer.varint(5);
  newer.append("abcde");
  newer.varint(tString);
  newer.varint(2);
  newer.varint(2001);
  newer.string("pooled text");
  newer.varint(2002);
  utf16_string(newer, u"pooled name");
  chunk.pools(8, newer);

  e = Buffer();
  e.varint(tSetting);
  e.varint(kTicks);
  e.varint(0);
  e.varint(0);
  e.varint(0);
  e.varint(tSample);
  e.string("period");
  latin1_string(e, "20 ms");
  chunk.event(e);

  return chunk.finish(metadata_event(jdk_like_types()), kTicks, 1'000'000'000);
}

TEST(JfrReader, DecodesByTheChunksMetadata) {
  const Read r = read_bytes(jdk_like_chunk());
  ASSERT_FALSE(r.error) << r.error.message();
  ASSERT_EQ(r.events.size(), 3u);

  const std::vector<Frame> two_frames = {{"java.lang.String", "café", "(Ljava/lang/Object;)I", 42, 7, "JIT compiled"},
                                         {"demo.Main", "main", "", 3, 0, "Interpreted"}};
  Event sample{"jdk.ExecutionSample", kStartNanos + 10, 0, "77/12/worker \xf0\x9f\x98\x80", two_frames, true};
  EXPECT_EQ(r.events[0], sample);
  Event everything{"test.Everything",  kStartNanos + 20, 5, "78/13/pooled name", {}, false,
                   "java.lang.String", 123456789};
  EXPECT_EQ(r.events[1], everything);
  Event setting{"jdk.ActiveSetting", kStartNanos, 0, ""};
  setting.setting_type = "jdk.ExecutionSample";
  setting.setting_name = "period";
  setting.setting_value = "20 ms";
  EXPECT_EQ(r.events[2], setting);
}

// Each chunk is read by its own metadata and pools: a file may mix writers, and the keys of a
// chunk without pools name nothing, whatever the chunk before held.
TEST(JfrReader, ReadsEachChunkByItsOwnTypesAndPools) {
  const Sample s = two_chunks();
  const std::string jdk = jdk_like_chunk();
  RawChunk bare;
  Buffer e;
  e.varint(tSample);
  e.varint(5);
  e.varint(501);
  e.varint(601);
  bare.event(e);
  const size_t first = s.chunk_ends[0];
  const Read r = read_bytes(s.bytes.substr(0, first) + jdk +
                            bare.finish(metadata_event(jdk_like_types()), 0, 1'000'000'000) + s.bytes.substr(first));
  ASSERT_FALSE(r.error) << r.error.message();
  std::vector<Event> expected(s.events.begin(), s.events.begin() + static_cast<long>(s.chunk_events[0]));
  for (const Event& jdk_event : read_bytes(jdk).events) expected.push_back(jdk_event);
  expected.push_back({"jdk.ExecutionSample", kStartNanos + 5});
  expected.insert(expected.end(), s.events.begin() + static_cast<long>(s.chunk_events[0]), s.events.end());
  ASSERT_EQ(r.events.size(), expected.size());
  for (size_t i = 0; i < expected.size(); i++) EXPECT_EQ(r.events[i], expected[i]) << "event " << i;
  EXPECT_EQ(r.stats.chunks, 4);
}

// A size field so large that the offset it leads to wraps around.
TEST(JfrReader, RefusesSizesPastTheChunk) {
  Buffer huge;
  huge.varint(~uint64_t{0} - 40);
  for (const bool pools : {true, false}) {
    RawChunk chunk;
    Buffer e;
    e.varint(tSample);
    e.varint(5);
    e.varint(0);
    e.varint(0);
    chunk.event(e);
    chunk.raw(huge.bytes() + std::string(20, '\1'), pools);
    const Read r = read_bytes(chunk.finish(metadata_event(jdk_like_types()), 0, 1'000'000'000));
    ASSERT_TRUE(r.error);
    EXPECT_NE(r.error.message().find(pools ? "a constant-pool event whose size runs past its chunk at byte 74"
                                           : "an event whose size runs past its chunk at byte 74"),
              std::string::npos)
        << r.error.message();
    EXPECT_EQ(r.events.size(), pools ? 0u : 1u);
  }
}

// A thread whose Java name is null goes by its OS name, in Latin-1 converted to UTF-8.
TEST(JfrReader, NamesAThreadWithoutAJavaNameByItsOsName) {
  RawChunk chunk;
  Buffer e;
  e.varint(tSample);
  e.varint(5);
  e.varint(9);
  e.varint(0);
  chunk.event(e);
  Buffer pools;
  pools.varint(tThread);
  pools.varint(1);
  pools.varint(9);
  latin1_string(pools, "G1 \xc4");
  pools.varint(40);
  pools.null_string();
  pools.varint_signed(-1);
  pools.varint(0);
  pools.u8(0);
  chunk.pools(1, pools);
  const Read r = read_bytes(chunk.finish(metadata_event(jdk_like_types()), 0, 1'000'000'000));
  ASSERT_FALSE(r.error) << r.error.message();
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].thread, "40/-1/G1 \xc3\x84");
}

// Random damage never crashes nor reads outside the chunk (the sanitizer builds check the
// latter); what is read, up to an error naming an offset in the file, is whatever the bytes say.
TEST(JfrReader, SurvivesCorruptBytes) {
  const std::string files[] = {two_chunks().bytes, jdk_like_chunk()};
  std::mt19937_64 random(20240611);
  const MemoryFile file;
  int errors = 0;
  constexpr int kTrials = 10000;
  for (int trial = 0; trial < kTrials; trial++) {
    std::string bytes = files[trial % 2];
    const int changes = 1 + static_cast<int>(random() % 4);
    for (int i = 0; i < changes; i++) {
      const size_t at = random() % bytes.size();
      // Bytes that make long varints and big counts, and any byte.
      const unsigned char values[] = {0x00, 0x01, 0x7f, 0x80, 0xff, static_cast<unsigned char>(random())};
      bytes[at] = static_cast<char>(values[random() % std::size(values)]);
    }
    const Read r = read_file(file.path(bytes));
    if (r.error) {
      errors++;
      const int64_t at = error_offset(r.error);
      EXPECT_GE(at, 0) << r.error.message();
      EXPECT_LE(at, static_cast<int64_t>(bytes.size())) << r.error.message();
    }
    EXPECT_LE(r.stats.bytes, static_cast<int64_t>(bytes.size()));
  }
  EXPECT_GT(errors, kTrials / 20);  // the damage is seen, often
}

}  // namespace
}  // namespace jvmkit::jfr
