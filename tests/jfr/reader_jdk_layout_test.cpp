// The reader on chunks of the JDK's layout (jdk_like_chunk.hpp), made by hand: ChunkWriter writes
// one set of type ids and fields, and a reader tested on its chunks alone could read by those
// rather than by what each chunk declares.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jdk_like_chunk.hpp"
#include "jfr/buffer.hpp"
#include "reader_test_support.hpp"

namespace jvmkit::jfr {
namespace {

using test::Event;
using test::Frame;
using test::jdk_like_chunk;
using test::jdk_like_types;
using test::kStartNanos;
using test::latin1_string;
using test::metadata_event;
using test::RawChunk;
using test::Read;
using test::read_bytes;
using test::tSample;
using test::tThread;

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

}  // namespace
}  // namespace jvmkit::jfr
