// The layout check (src/jfr/layout_check.hpp): what the chunk writer writes keeps its rules, and
// each rule fails on a chunk that breaks it: among them the ways jvmkit's recordings of
// 2026-12-06 lost async-profiler's converter (a bytecode index of -1 in nine bytes; sample events
// that went on past the fields the converter reads) and JDK Mission Control (no flag of compressed
// integers; settings of event type 0).
#include "jfr/layout_check.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "jfr/buffer.hpp"
#include "jfr/chunk_writer.hpp"
#include "jfr/metadata.hpp"
#include "tests/support/jfr_chunks.hpp"

namespace jvmkit::jfr {
namespace {

using test::DeclaredType;
using test::hand_chunk;
using test::kChunkStartNanos;
using test::kChunkStartTicks;
using test::metadata_of;
using test::sized_event;

std::string chunk(const Buffer& events, size_t pool_count, const Buffer& pools) {
  return hand_chunk(events, pool_count, pools);
}

LayoutReport check(const std::string& bytes) {
  LayoutReport r;
  check_layout(bytes, &r);
  return r;
}

// Whether one of R's problems says WHAT.
bool says(const LayoutReport& r, std::string_view what) {
  for (const std::string& p : r.problems)
    if (p.find(what) != std::string::npos) return true;
  return false;
}

std::string problems(const LayoutReport& r) {
  std::string out;
  for (const std::string& p : r.problems) out += p + "\n";
  return out;
}

TEST(JfrLayoutCheck, WhatTheChunkWriterWritesKeepsTheRules) {
  ChunkWriter w(kChunkStartNanos, kChunkStartTicks);
  const uint64_t thread = w.add_thread({4242, "java", 1, "main", false});
  const uint64_t virtual_thread = w.add_thread({0, "", 77, "", true});
  const uint64_t gc = w.add_thread({4250, "G1 Conc#0", -1, "", false});
  const uint64_t string = w.add_class("java.lang.String");
  // A Java native method and C code have no bytecode index (-1); C code has no class (symbol "").
  const std::vector<StackFrame> frames = {
      {w.add_method(0, "__memmove_avx_unaligned_erms", ""), 0, -1, FrameKind::kCpp},
      {w.add_method(0, "do_syscall_64", ""), 0, -1, FrameKind::kKernel},
      {w.add_method(string, "intern", "()Ljava/lang/String;"), 0, -1, FrameKind::kNative},
      {w.add_method(string, "hashCode", "()I"), 1503, 10, FrameKind::kInlined}};
  const uint64_t stack = w.add_stack(frames, true);
  const EventContext context{"endpoint=/checkout", "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"};
  int64_t t = kChunkStartTicks + 10;
  w.execution_sample(t++, thread, stack, context);
  w.execution_sample(t++, gc, stack);
  w.wall_clock_sample(t++, virtual_thread, stack, {"endpoint=/cart", "", ""});
  w.perf_event_sample(t++, thread, stack, "page-faults", 10, context);
  w.allocation_sample(t++, thread, stack, w.add_class("int[]"), 4096, context);
  w.monitor_enter(t++, 500, thread, stack, w.add_class("java.lang.Object"), context);
  w.thread_park(t++, 700, thread, stack, 0, context);
  w.active_recording(kChunkStartTicks, {1, "jvmkit", "/tmp/x.jfr", 1000, 1'764'000'000'000, 0});
  w.active_setting(kChunkStartTicks, kExecutionSample, "period", "10 ms");
  w.active_setting(kChunkStartTicks, 0, "jvmkit.cstack", "native");  // the recording's own
  const std::string first = w.finish(t, false);
  ChunkWriter second(kChunkStartNanos + 1000, kChunkStartTicks + 1000, w.next_key());
  second.execution_sample(kChunkStartTicks + 1000, second.add_thread({4242, "java", 1, "main", false}),
                          second.add_stack({}, false));
  const LayoutReport r = check(first + second.finish(kChunkStartTicks + 2000, true));
  EXPECT_TRUE(r.ok()) << problems(r);
  EXPECT_EQ(r.chunks, 2);
  EXPECT_EQ(r.events, 17);  // 7 samples, 6 contexts, 3 recording events; the second chunk's sample
  EXPECT_GT(r.entries, 10);
}

// A pool of one stack of one frame, whose bytecode index BCI writes.
Buffer one_frame_stack(void (*bci)(Buffer&)) {
  Buffer p;
  p.varint(kStackTrace);
  p.varint(1);
  p.varint(1);  // key
  p.boolean(false);
  p.varint(1);  // frames
  p.varint(0);  // method: null
  p.varint_int(0);
  bci(p);
  p.varint(0);  // type: null
  return p;
}

TEST(JfrLayoutCheck, TheHeaderSaysTheIntegersAreCompressed) {
  std::string bytes = chunk({}, 0, {});
  EXPECT_TRUE(check(bytes).ok()) << problems(check(bytes));
  bytes[67] = 0;  // as jvmkit's chunks had it until 2026-12-07
  const LayoutReport r = check(bytes);
  EXPECT_TRUE(says(r, "without the flag of compressed integers")) << problems(r);
}

TEST(JfrLayoutCheck, AnIntInNineBytesLosesAThirtyTwoBitReader) {
  const LayoutReport nine = check(chunk({}, 1, one_frame_stack([](Buffer& b) { b.varint_signed(-1); })));
  EXPECT_TRUE(says(nine, "an int written in 9 bytes")) << problems(nine);
  const LayoutReport five = check(chunk({}, 1, one_frame_stack([](Buffer& b) { b.varint_int(-1); })));
  EXPECT_TRUE(five.ok()) << problems(five);
}

TEST(JfrLayoutCheck, SymbolsAreUtf8BytesAlsoWhenEmpty) {
  Buffer encoding1, encoding3;
  for (Buffer* b : {&encoding1, &encoding3}) {
    b->varint(kSymbol);
    b->varint(1);
    b->varint(1);
  }
  encoding1.string("");
  encoding3.utf8_bytes("");
  const LayoutReport r = check(chunk({}, 1, encoding1));
  EXPECT_TRUE(says(r, "a symbol in string encoding 1")) << problems(r);
  EXPECT_TRUE(check(chunk({}, 1, encoding3)).ok());
}

TEST(JfrLayoutCheck, APoolIsOfADeclaredTypeWithoutSuperType) {
  Buffer undeclared, event;
  undeclared.varint(99);
  undeclared.varint(0);
  event.varint(kExecutionSample);
  event.varint(0);
  const LayoutReport r = check(chunk({}, 1, undeclared));
  EXPECT_TRUE(says(r, "a constant pool of a type the metadata does not declare")) << problems(r);
  const LayoutReport e = check(chunk({}, 1, event));
  EXPECT_TRUE(says(e, "a pool of jdk.ExecutionSample, declared with a superType")) << problems(e);
}

TEST(JfrLayoutCheck, ASettingNamesAnEventTypeOfTheChunk) {
  for (uint64_t of : {uint64_t{0}, uint64_t{kExecutionSample}}) {
    Buffer e;
    e.varint(kActiveSetting);
    e.varint(kChunkStartTicks);
    e.varint(0);  // duration
    e.varint(0);  // thread
    e.varint(0);  // stack
    e.varint(of);
    e.string("period");
    e.string("10 ms");
    const LayoutReport r = check(chunk(sized_event(e), 0, {}));
    EXPECT_EQ(says(r, "a jdk.ActiveSetting of event type id 0"), of == 0) << problems(r);
  }
}

TEST(JfrLayoutCheck, AnEventEndsWhereItsFieldsEnd) {
  Buffer e;
  e.varint(kExecutionSample);
  e.varint(kChunkStartTicks);
  e.varint(0);
  e.varint(0);
  e.varint(0);
  e.null_string();  // one byte more than the fields
  const LayoutReport r = check(chunk(sized_event(e), 0, {}));
  EXPECT_TRUE(says(r, "a jdk.ExecutionSample event whose fields end 1 bytes before its size says")) << problems(r);
}

TEST(JfrLayoutCheck, AKeyNamesAnEntryOfTheChunk) {
  Buffer e;
  e.varint(kExecutionSample);
  e.varint(kChunkStartTicks);
  e.varint(5);  // a thread no pool holds
  e.varint(0);
  e.varint(0);
  const LayoutReport r = check(chunk(sized_event(e), 0, {}));
  EXPECT_TRUE(says(r, "a key of java.lang.Thread that no pool of the chunk holds")) << problems(r);
}

TEST(JfrLayoutCheck, ASampleEventHasExactlyTheFieldsReadByPosition) {
  // jdk.ExecutionSample with one field more (as jvmkit's had its context until 2026-12-06), and a
  // long kept in a pool.
  const std::vector<DeclaredType> types = {
      {8, "int", "", {}},
      {9, "long", "", {}},
      {10, "java.lang.String", "", {}},
      {21, "java.lang.Thread", "", {{"osName", 10}, {"osThreadId", 9}}},
      {28, "jdk.types.StackTrace", "", {{"depth", 8}}},
      {31, "jdk.types.ThreadState", "", {{"name", 10}}},
      {40, "test.Pooled", "", {{"n", 9, true}}},
      {100,
       "jdk.ExecutionSample",
       "jdk.jfr.Event",
       {{"startTime", 9},
        {"sampledThread", 21, true},
        {"stackTrace", 28, true},
        {"state", 31, true},
        {"contextLabels", 10}}},
  };
  const LayoutReport r = check(hand_chunk({}, 0, {}, metadata_of(types)));
  EXPECT_TRUE(says(r, "jdk.ExecutionSample: has 5 fields; async-profiler's converter reads exactly 4")) << problems(r);
  EXPECT_TRUE(says(r, "java.lang.Thread: has 2 fields; async-profiler's converter reads more")) << problems(r);
  EXPECT_TRUE(says(r, "test.Pooled: field 1 keeps a number in a pool")) << problems(r);
}

}  // namespace
}  // namespace jvmkit::jfr
