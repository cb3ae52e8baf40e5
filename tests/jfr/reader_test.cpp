// The reader on recordings that jvmkit's own ChunkWriter writes, whose every event the test knows,
// and on files that mix them with chunks of the JDK's layout (jdk_like_chunk.hpp): what is read
// back must be what was written, across chunks, limits, cuts and damage.
#include "jfr/reader.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include <random>
#include <string>
#include <vector>

#include "jdk_like_chunk.hpp"
#include "jfr/buffer.hpp"
#include "jfr/chunk_writer.hpp"
#include "jfr/metadata.hpp"
#include "reader_test_support.hpp"

namespace jvmkit::jfr {
namespace {

using test::error_offset;
using test::Event;
using test::Frame;
using test::jdk_like_chunk;
using test::jdk_like_types;
using test::kStartNanos;
using test::MemoryFile;
using test::metadata_event;
using test::RawChunk;
using test::Read;
using test::read_bytes;
using test::read_file;
using test::temp_file;
using test::thread_text;
using test::tSample;

// --- Recordings written by ChunkWriter, and the events they hold ---

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

// --- Files of both writers: ChunkWriter's chunks and chunks of the JDK's layout ---

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
