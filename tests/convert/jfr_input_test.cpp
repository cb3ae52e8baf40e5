// Reading recordings into samples (src/convert/sample_inputs.cpp): the wall-clock samples of
// jvmkit's recordings, of its recordings before 2026-12-07 (jvmkit.WallClockSample) and of
// async-profiler's, whose one sample may stand for several ticks of the clock.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "convert/samples.hpp"
#include "jfr/chunk_writer.hpp"
#include "jfr/metadata.hpp"
#include "tests/support/jfr_chunks.hpp"

namespace jvmkit::convert {
namespace {

using jfr::ChunkWriter;
using test::kChunkStartNanos;
using test::kChunkStartTicks;

struct Read {
  std::string event;
  int64_t count;
  int64_t weight;
  size_t frames;
};

std::vector<Read> read(const std::string& bytes) {
  const std::string path = ::testing::TempDir() + "jfr_input_test_" + std::to_string(getpid()) + ".jfr";
  std::ofstream(path, std::ios::binary) << bytes;
  std::vector<Read> out;
  const Error e = read_jfr_samples(path, [&](const Sample& s) {
    out.push_back({std::string(s.event), s.count, s.weight, s.frames.size()});
    return true;
  });
  unlink(path.c_str());
  EXPECT_FALSE(e) << e.message();
  return out;
}

// A chunk whose last event is a wall-clock sample of a 20 ms period, one Java frame deep.
std::string wall_chunk() {
  ChunkWriter w(kChunkStartNanos, kChunkStartTicks);
  const uint64_t thread = w.add_thread({42, "worker", 7, "worker", false});
  const uint64_t method = w.add_method(w.add_class("demo.Main"), "run", "()V");
  const uint64_t stack = w.add_stack(std::vector<jfr::StackFrame>{{method, 3, 1, jfr::FrameKind::kJit}}, false);
  w.active_setting(kChunkStartTicks, jfr::kWallClockSample, "period", "20 ms");
  w.wall_clock_sample(kChunkStartTicks + 10, thread, stack);
  return w.finish(kChunkStartTicks + 20, true);
}

uint64_t raw64_at(const std::string& bytes, size_t at) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; i++) v = v << 8 | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

TEST(ConvertJfrInput, WallClockSamplesAreWallSamplesOfThePeriod) {
  const std::vector<Read> r = read(wall_chunk());
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].event, "wall");
  EXPECT_EQ(r[0].count, 1);
  EXPECT_EQ(r[0].weight, 20'000'000);
  EXPECT_EQ(r[0].frames, 1u);
}

TEST(ConvertJfrInput, AnAsyncProfilerWallSampleCountsItsSamples) {
  // The sample is the last event before the constant pools, its last byte its "samples" (1): as
  // async-profiler's recordings batch the ticks of an idle thread, make it 3.
  std::string chunk = wall_chunk();
  const size_t pools_at = raw64_at(chunk, 16);
  ASSERT_EQ(chunk[pools_at - 1], 1);
  chunk[pools_at - 1] = 3;
  const std::vector<Read> r = read(chunk);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].event, "wall");
  EXPECT_EQ(r[0].count, 3);
  EXPECT_EQ(r[0].weight, 60'000'000);
}

TEST(ConvertJfrInput, ReadsTheWallClockSamplesOfEarlierRecordings) {
  // The same chunk with its wall-clock sample type named as jvmkit named it before 2026-12-07.
  std::vector<test::DeclaredType> types = test::jvmkit_types();
  for (test::DeclaredType& t : types)
    if (t.id == jfr::kWallClockSample) t.name = "jvmkit.WallClockSample";
  std::string chunk = wall_chunk();
  chunk.resize(raw64_at(chunk, 24));  // up to its metadata, the last event of a chunk
  chunk += test::metadata_of(types);
  for (int i = 0; i < 8; i++) chunk[8 + i] = static_cast<char>(chunk.size() >> (56 - 8 * i));
  const std::vector<Read> r = read(chunk);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].event, "wall");
  EXPECT_EQ(r[0].weight, 20'000'000);
}

}  // namespace
}  // namespace jvmkit::convert
