#include "jfr/chunk_writer.hpp"

#include <gtest/gtest.h>

#include <string>

#include "jfr/metadata.hpp"

namespace jvmkit::jfr {
namespace {

uint64_t raw64_at(const std::string& bytes, size_t at) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; i++) v = v << 8 | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

// The varint at AT; AT moves past it.
uint64_t varint_at(const std::string& bytes, size_t* at) {
  uint64_t v = 0;
  for (int i = 0; i < 9; i++) {
    const auto byte = static_cast<unsigned char>(bytes[(*at)++]);
    if (i == 8) return v | static_cast<uint64_t>(byte) << 56;
    v |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if (byte < 0x80) break;
  }
  return v;
}

TEST(JfrChunkWriter, HeaderPointsAtThePoolsAndTheMetadata) {
  ChunkWriter w(1'000'000'000'000, 77);
  const uint64_t thread = w.add_thread({1, "main", 1, "main", false});
  const uint64_t klass = w.add_class("demo.Main");
  const StackFrame frame{w.add_method(klass, "main", "([Ljava/lang/String;)V"), 12, 3, FrameKind::kJit};
  w.execution_sample(100, thread, w.add_stack({&frame, 1}, false));
  EXPECT_EQ(w.events(), 1u);
  const std::string chunk = w.finish(1077, true);

  ASSERT_GT(chunk.size(), 68u);
  EXPECT_EQ(chunk.substr(0, 4), std::string("FLR\0", 4));
  EXPECT_EQ(raw64_at(chunk, 8), chunk.size());         // chunk size
  EXPECT_EQ(raw64_at(chunk, 32), 1'000'000'000'000u);  // start nanos
  EXPECT_EQ(raw64_at(chunk, 40), 1000u);               // duration: end - start ticks, in ns
  EXPECT_EQ(raw64_at(chunk, 48), 77u);                 // start ticks
  EXPECT_EQ(raw64_at(chunk, 56), 1'000'000'000u);
  EXPECT_EQ(static_cast<unsigned char>(chunk[64]), 0);  // finished
  EXPECT_EQ(static_cast<unsigned char>(chunk[67]), 3);  // flags: compressed integers, the final chunk

  // The first event follows the header; the offsets name events of type 1 and 0.
  size_t at = 68;
  const uint64_t first_size = varint_at(chunk, &at);
  EXPECT_EQ(varint_at(chunk, &at), kExecutionSample);
  EXPECT_EQ(68 + first_size, raw64_at(chunk, 16));
  at = raw64_at(chunk, 16);
  const uint64_t pool_size = varint_at(chunk, &at);
  EXPECT_EQ(varint_at(chunk, &at), kConstantPoolEvent);
  EXPECT_EQ(raw64_at(chunk, 16) + pool_size, raw64_at(chunk, 24));
  at = raw64_at(chunk, 24);
  const uint64_t metadata_size = varint_at(chunk, &at);
  EXPECT_EQ(varint_at(chunk, &at), kMetadataEvent);
  EXPECT_EQ(raw64_at(chunk, 24) + metadata_size, chunk.size());
}

TEST(JfrChunkWriter, DeduplicatesSymbolsClassesAndMethods) {
  ChunkWriter w(0, 0);
  EXPECT_EQ(w.add_symbol("a"), 1u);
  EXPECT_EQ(w.add_symbol("b"), 2u);
  EXPECT_EQ(w.add_symbol("a"), 1u);
  const uint64_t string_class = w.add_class("java.lang.String");
  EXPECT_EQ(w.add_class("java.lang.String"), string_class);
  EXPECT_NE(w.add_class("java.lang.Object"), string_class);
  const uint64_t m = w.add_method(string_class, "hashCode", "()I");
  EXPECT_EQ(w.add_method(string_class, "hashCode", "()I"), m);
  EXPECT_NE(w.add_method(string_class, "hashCode", "(I)I"), m);
  EXPECT_NE(w.add_method(0, "hashCode", "()I"), m);
}

// The JDK's reader keeps the objects of the previous chunk by key: a file's keys name one thing.
TEST(JfrChunkWriter, KeysGoOnFromThePreviousChunk) {
  ChunkWriter first(0, 0);
  const uint64_t a = first.add_thread({1, "a", 1, "a", false});
  const uint64_t s = first.add_symbol("x");
  EXPECT_GT(first.next_key(), std::max(a, s));
  ChunkWriter second(0, 0, first.next_key());
  EXPECT_GE(second.add_thread({2, "b", 2, "b", false}), first.next_key());
  EXPECT_GE(second.add_symbol("x"), first.next_key());
}

TEST(JfrChunkWriter, NotFinalUnlessAsked) {
  ChunkWriter w(0, 0);
  const std::string chunk = w.finish(0, false);
  EXPECT_EQ(static_cast<unsigned char>(chunk[67]), 1);  // flags: compressed integers only
}

// JDK Mission Control refuses a type id it cannot find, also an annotation's (TypeManager).
TEST(JfrMetadata, EveryFieldHasADeclaredType) {
  for (const TypeDef& t : metadata_types()) {
    for (const FieldDef& f : t.fields) {
      EXPECT_NE(find_type(f.type), nullptr) << t.name << "." << f.name;
      for (const Annotation& a : f.annotations) EXPECT_NE(find_type(a.type), nullptr) << t.name << "." << f.name;
    }
    for (const Annotation& a : t.annotations) EXPECT_NE(find_type(a.type), nullptr) << t.name;
  }
}

// The JDK's event parser reads startTime first and, when the event has one, duration second.
TEST(JfrMetadata, EventsStartWithTheirTimes) {
  for (const TypeDef& t : metadata_types()) {
    if (t.super_type != "jdk.jfr.Event") continue;
    ASSERT_FALSE(t.fields.empty()) << t.name;
    EXPECT_EQ(t.fields[0].name, "startTime") << t.name;
    for (size_t i = 2; i < t.fields.size(); i++) EXPECT_NE(t.fields[i].name, "duration") << t.name;
  }
}

}  // namespace
}  // namespace jvmkit::jfr
