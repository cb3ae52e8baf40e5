// The three writers on a small known profile: collapsed lines, the HTML page's data, and the pprof
// protobuf decoded back field by field.
#include "profiler/writers.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <map>

#include "profiler/proto_encoder.hpp"

namespace jvmkit::prof {
namespace {

// main -> a (JIT, 3 samples at lines 10 and 11), main -> b (interpreted, 1), main -> b (inlined, 1)
Profile sample_profile() {
  Profile p;
  uint32_t main = p.add_method("app.Main.main", "Main.java");
  uint32_t a = p.add_method("app.Main.a", "Main.java");
  uint32_t b = p.add_method("app.Main.b", "Main.java");
  p.add_sample({{a, FrameType::kJit, 10}, {main, FrameType::kInterpreted, 5}});
  p.add_sample({{a, FrameType::kJit, 10}, {main, FrameType::kInterpreted, 5}});
  p.add_sample({{a, FrameType::kJit, 11}, {main, FrameType::kInterpreted, 5}});
  p.add_sample({{b, FrameType::kInterpreted, 20}, {main, FrameType::kInterpreted, 6}});
  p.add_sample({{b, FrameType::kInlined, 20}, {main, FrameType::kInterpreted, 6}});
  return p;
}

TEST(CollapsedWriter, MergesByNameRootFirst) {
  EXPECT_EQ(collapsed_text(sample_profile(), false),
            "app.Main.main;app.Main.a 3\n"
            "app.Main.main;app.Main.b 2\n");
}

TEST(CollapsedWriter, AnnotatedKeepsFrameTypes) {
  EXPECT_EQ(collapsed_text(sample_profile(), true),
            "app.Main.main_[0];app.Main.a_[j] 3\n"
            "app.Main.main_[0];app.Main.b_[0] 1\n"
            "app.Main.main_[0];app.Main.b_[i] 1\n");
}

TEST(CollapsedWriter, SeparatorsInNamesAreReplaced) {
  Profile p;
  uint32_t odd = p.add_method("weird;name\nwith space", "");
  p.add_sample({{odd, FrameType::kJit, 0}});
  EXPECT_EQ(collapsed_text(p, false), "weird_name_with space 1\n");
}

TEST(CollapsedWriter, ThreadRootHasNoSuffix) {
  Profile p;
  uint32_t t = p.add_method("[main tid=7]", "");
  uint32_t m = p.add_method("M.m", "");
  p.add_sample({{m, FrameType::kJit, 0}, {t, FrameType::kThread, 0}});
  EXPECT_EQ(collapsed_text(p, true), "[main tid=7];M.m_[j] 1\n");
}

TEST(HtmlWriter, SelfContainedPageWithTheTree) {
  RunInfo info;
  info.title = "t<itle>";
  std::string page = html_text(sample_profile(), info);
  EXPECT_NE(page.find("<!DOCTYPE html>"), std::string::npos);
  EXPECT_NE(page.find("t&lt;itle&gt;"), std::string::npos);
  EXPECT_EQ(page.find("/*DATA*/"), std::string::npos);
  EXPECT_EQ(page.find("/*TITLE*/"), std::string::npos);
  EXPECT_NE(page.find("\"app.Main.a\""), std::string::npos);
  // main (interpreted, 5 samples) with three children: a JIT 3, b interpreted 1, b inlined 1.
  EXPECT_NE(page.find("\"root\":[0,5,5,0,[[1,0,5,0,["), std::string::npos) << page.substr(page.find("\"root\""), 80);
  // No network: nothing is loaded from elsewhere.
  EXPECT_EQ(page.find("http://"), std::string::npos);
  EXPECT_EQ(page.find("https://"), std::string::npos);
  EXPECT_EQ(page.find("<script src"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
}

TEST(HtmlWriter, NamesCannotCloseTheScript) {
  Profile p;
  uint32_t evil = p.add_method("</script><b>\"x\\", "");
  p.add_sample({{evil, FrameType::kJit, 0}});
  std::string page = html_text(p, RunInfo());
  EXPECT_EQ(page.find("</script><b>"), std::string::npos);
  EXPECT_NE(page.find("\\u003c/script\\u003e\\u003cb\\u003e\\\"x\\\\"), std::string::npos);
}

// --- a small protobuf reader for the test ---
struct Field {
  uint32_t number;
  uint64_t varint = 0;
  std::string bytes;
};

std::vector<Field> decode(const std::string& in) {
  std::vector<Field> out;
  size_t pos = 0;
  auto varint = [&]() {
    uint64_t v = 0;
    for (int shift = 0; pos < in.size(); shift += 7) {
      uint8_t byte = static_cast<uint8_t>(in[pos++]);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) break;
    }
    return v;
  };
  while (pos < in.size()) {
    uint64_t tag = varint();
    Field f{static_cast<uint32_t>(tag >> 3)};
    if ((tag & 7) == 0) {
      f.varint = varint();
    } else if ((tag & 7) == 2) {
      size_t len = varint();
      f.bytes = in.substr(pos, len);
      pos += len;
    } else {
      ADD_FAILURE() << "unexpected wire type " << (tag & 7);
      return out;
    }
    out.push_back(f);
  }
  return out;
}

std::vector<uint64_t> packed(const std::string& bytes) {
  std::vector<uint64_t> v;
  size_t pos = 0;
  while (pos < bytes.size()) {
    uint64_t x = 0;
    for (int shift = 0; pos < bytes.size(); shift += 7) {
      uint8_t byte = static_cast<uint8_t>(bytes[pos++]);
      x |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) break;
    }
    v.push_back(x);
  }
  return v;
}

std::string gunzip(const std::string& gz) {
  z_stream zs{};
  EXPECT_EQ(inflateInit2(&zs, 15 + 16), Z_OK);
  std::string out(1 << 20, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = static_cast<uInt>(gz.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  inflateEnd(&zs);
  return out;
}

TEST(ProtoEncoder, EncodesVarintsAndNestedMessages) {
  ProtoEncoder e;
  e.varint_field(1, 150);
  EXPECT_EQ(e.bytes(), std::string("\x08\x96\x01", 3));
  e.clear();
  e.int64_field(2, -1);
  EXPECT_EQ(e.bytes().size(), 11u);  // tag + 10-byte varint
  e.clear();
  ProtoEncoder inner;
  inner.bytes_field(2, "ab");
  e.message_field(3, inner);
  EXPECT_EQ(e.bytes(), std::string("\x1a\x04\x12\x02"
                                   "ab",
                                   6));
  e.clear();
  e.packed_field(4, std::vector<uint64_t>{1, 300});
  EXPECT_EQ(e.bytes(), std::string("\x22\x03\x01\xac\x02", 5));
}

TEST(PprofWriter, ProfileProtoWithFunctionsLocationsLinesAndSamples) {
  RunInfo info;
  info.value_type = "cpu";
  info.value_unit = "nanoseconds";
  info.interval = 1'000'000;
  info.duration_ns = 5'000'000'000;
  std::string gz = pprof_bytes(sample_profile(), info);
  ASSERT_GT(gz.size(), 18u);
  EXPECT_EQ(static_cast<uint8_t>(gz[0]), 0x1f);  // gzip magic
  EXPECT_EQ(static_cast<uint8_t>(gz[1]), 0x8b);
  std::vector<Field> fields = decode(gunzip(gz));

  std::vector<std::string> strings;
  for (const Field& f : fields) {
    if (f.number == 6) strings.push_back(f.bytes);
  }
  ASSERT_FALSE(strings.empty());
  EXPECT_EQ(strings[0], "");
  std::map<uint64_t, std::string> function_names;
  std::map<uint64_t, std::pair<uint64_t, int64_t>> locations;  // id -> (function, line)
  std::vector<std::string> sample_types;
  int64_t samples = 0, weighted = 0, period = 0;
  std::map<std::string, int64_t> by_stack;
  std::vector<Field> sample_fields;
  for (const Field& f : fields) {
    if (f.number == 1) {
      auto vt = decode(f.bytes);
      sample_types.push_back(strings.at(vt[0].varint) + "/" + strings.at(vt[1].varint));
    } else if (f.number == 5) {
      uint64_t id = 0, name = 0;
      for (const Field& g : decode(f.bytes)) {
        if (g.number == 1) id = g.varint;
        if (g.number == 2) name = g.varint;
      }
      function_names[id] = strings.at(name);
    } else if (f.number == 4) {
      uint64_t id = 0;
      std::pair<uint64_t, int64_t> line{};
      for (const Field& g : decode(f.bytes)) {
        if (g.number == 1) id = g.varint;
        if (g.number == 4) {
          for (const Field& h : decode(g.bytes)) {
            if (h.number == 1) line.first = h.varint;
            if (h.number == 2) line.second = static_cast<int64_t>(h.varint);
          }
        }
      }
      locations[id] = line;
    } else if (f.number == 2) {
      sample_fields.push_back(f);
    } else if (f.number == 12) {
      period = static_cast<int64_t>(f.varint);
    }
  }
  for (const Field& f : sample_fields) {
    std::vector<uint64_t> ids, values;
    for (const Field& g : decode(f.bytes)) {
      if (g.number == 1) ids = packed(g.bytes);
      if (g.number == 2) values = packed(g.bytes);
    }
    ASSERT_EQ(values.size(), 2u);
    samples += static_cast<int64_t>(values[0]);
    weighted += static_cast<int64_t>(values[1]);
    std::string stack;
    for (uint64_t id : ids) {  // leaf first
      auto [function, line] = locations.at(id);
      stack += function_names.at(function) + ":" + std::to_string(line) + " ";
    }
    by_stack[stack] += static_cast<int64_t>(values[0]);
  }
  EXPECT_EQ(sample_types, (std::vector<std::string>{"samples/count", "cpu/nanoseconds"}));
  EXPECT_EQ(function_names.size(), 3u);
  EXPECT_EQ(samples, 5);
  EXPECT_EQ(weighted, 5 * 1'000'000);
  EXPECT_EQ(period, 1'000'000);
  EXPECT_EQ(by_stack["app.Main.a:10 app.Main.main:5 "], 2);
  EXPECT_EQ(by_stack["app.Main.a:11 app.Main.main:5 "], 1);
  EXPECT_EQ(by_stack["app.Main.b:20 app.Main.main:6 "], 2);  // interpreted + inlined copies merge
}

// A continuous-mode window's start and length reach each format: pprof's time_nanos (field 9) and
// duration_nanos (10), the HTML page's header line, and collapsed output's first (comment) line.
TEST(Writers, WindowTimesInEveryFormat) {
  RunInfo info;
  info.event = "cpu, interval 10 ms";
  info.start_time_ns = 1'796'337'001'000'000'000;  // 2026-12-03T22:30:01Z
  info.duration_ns = 60'000'000'000;
  info.window = true;
  int64_t time_nanos = 0, duration_nanos = 0;
  for (const Field& f : decode(gunzip(pprof_bytes(sample_profile(), info)))) {
    if (f.number == 9) time_nanos = static_cast<int64_t>(f.varint);
    if (f.number == 10) duration_nanos = static_cast<int64_t>(f.varint);
  }
  EXPECT_EQ(time_nanos, info.start_time_ns);
  EXPECT_EQ(duration_nanos, info.duration_ns);
  EXPECT_NE(html_text(sample_profile(), info).find("from 2026-12-03T22:30:01Z for 60.0 s"), std::string::npos);
  const std::string collapsed = collapsed_text(sample_profile(), false, &info);
  EXPECT_EQ(collapsed.substr(0, collapsed.find('\n')),
            "# jvmkit profile: cpu, interval 10 ms, from 2026-12-03T22:30:01Z for 60.0 s");
  // Outside continuous mode collapsed output stays flamegraph.pl's plain input.
  EXPECT_NE(collapsed_text(sample_profile(), false).substr(0, 1), "#");
}

}  // namespace
}  // namespace jvmkit::prof
