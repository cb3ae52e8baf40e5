// The three writers on a small known profile: collapsed lines, the HTML page's data, and the pprof
// protobuf decoded back field by field.
#include "profiler/outputs/writers.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <map>

#include "java_only_profiles.hpp"
#include "pprof_decode.hpp"
#include "profiler/outputs/proto_encoder.hpp"

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

// A label frame's name joins its labels with commas, and a value may hold one: the page gets each
// label frame's labels apart, for its selector; a page without labels gets neither.
TEST(HtmlWriter, LabelFramesCarryTheirLabels) {
  Profile p;
  const uint32_t m = p.add_method("app.Main.serve", "Main.java");
  const uint32_t comma = p.add_labels_method({{"tenant", "acme,endpoint=/x"}});
  const uint32_t two = p.add_labels_method({{"endpoint", "/a"}, {"tenant", "acme"}});
  p.add_sample({{m, FrameType::kJit, 0}, {comma, FrameType::kLabels, 0}});
  p.add_sample({{m, FrameType::kJit, 0}, {two, FrameType::kLabels, 0}});
  const std::string page = html_text(p, RunInfo());
  EXPECT_NE(page.find("\"labels\":{\"[endpoint=/a,tenant=acme]\":[\"endpoint=/a\",\"tenant=acme\"],"
                      "\"[tenant=acme,endpoint=/x]\":[\"tenant=acme,endpoint=/x\"]}"),
            std::string::npos)
      << page.substr(page.find("var DATA"), 200);
  EXPECT_NE(page.find("<select id=\"labels\""), std::string::npos);
  const std::string plain = html_text(sample_profile(), RunInfo());
  EXPECT_EQ(plain.find("\"labels\""), std::string::npos);
  EXPECT_EQ(plain.find("id=\"labels\""), std::string::npos);
}

using pprof_test::decode;
using pprof_test::Field;
using pprof_test::gunzip;
using pprof_test::packed;

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

namespace jvmkit::prof {
namespace {

// An allocation profile: two sites of byte[] and one of java.lang.String, weighted in bytes
// (the class is the leaf frame); the golden files' (java_only_profiles.hpp).
Profile alloc_profile() { return golden::alloc_profile(); }

EventProfile alloc_event(const Profile& p) {
  EventProfile e;
  e.profile = &p;
  e.event = "alloc";
  e.description = "alloc, interval 512 KiB";
  e.count_type = "alloc_objects";
  e.value_type = "alloc_space";
  e.value_unit = "bytes";
  e.interval = 512 * 1024;
  e.weighted = true;
  return e;
}

TEST(Profile, SamplesCarryACountAndAWeight) {
  const Profile p = alloc_profile();
  EXPECT_EQ(p.total_samples(), 3);
  EXPECT_EQ(p.total_weight(), (4 << 20) + 600'000 + 524'288);
  const std::vector<MethodCount> top = top_methods(p, 10, true);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].name, "byte[]");
  EXPECT_EQ(top[0].samples, (4 << 20) + 600'000);
  EXPECT_EQ(top_methods(p, 10, false)[0].samples, 2);  // by count
}

TEST(Profile, ASampleTakenBackLeavesTheOutputs) {
  Profile p = alloc_profile();
  const uint32_t main = 0, bytes = 2;
  const uint32_t gone = p.add_method("app.Main.gone", "Main.java");
  const uint32_t node = p.add_sample(
      {{bytes, FrameType::kClass, 0}, {gone, FrameType::kJit, 4}, {main, FrameType::kInterpreted, 1}}, 999);
  EXPECT_EQ(p.total_samples(), 4);
  EXPECT_NE(html_text(p, RunInfo()).find("app.Main.gone"), std::string::npos);
  p.remove_sample(node, 999);  // its object was freed (alloc's live option)
  EXPECT_EQ(p.total_samples(), 3);
  EXPECT_EQ(p.total_weight(), (4 << 20) + 600'000 + 524'288);
  EXPECT_EQ(collapsed_text(p, true, nullptr, true), collapsed_text(alloc_profile(), true, nullptr, true));
  EXPECT_EQ(html_text(p, RunInfo()).find("app.Main.gone"), std::string::npos);  // not drawn
}

TEST(CollapsedWriter, ClassLeavesAreAnnotatedAndWeighted) {
  // Weights (bytes) instead of counts; the class frame's suffix is async-profiler's _[k].
  EXPECT_EQ(collapsed_text(alloc_profile(), true, nullptr, true),
            "app.Main.main_[0];app.Main.fill_[j];byte[]_[k] " + std::to_string((4 << 20) + 600'000) +
                "\n"
                "app.Main.main_[0];java.lang.String_[k] 524288\n");
  EXPECT_EQ(collapsed_text(alloc_profile(), false, nullptr, false),
            "app.Main.main;app.Main.fill;byte[] 2\n"
            "app.Main.main;java.lang.String 1\n");
}

TEST(Writers, EventFileNames) {
  EXPECT_EQ(event_file_name("/tmp/out.collapsed", "alloc"), "/tmp/out.alloc.collapsed");
  EXPECT_EQ(event_file_name("out.txt", "cpu"), "out.cpu.txt");
  EXPECT_EQ(event_file_name("/a.b/out", "lock"), "/a.b/out.lock");
  EXPECT_EQ(event_file_name("/tmp/.hidden", "cpu"), "/tmp/.hidden.cpu");
  EXPECT_EQ(event_file_name("p.pb.gz", "cpu"), "p.cpu.pb.gz");
}

// The sample types, and each sample's values, of a pprof file.
struct DecodedPprof {
  std::vector<std::string> sample_types;
  std::vector<std::vector<int64_t>> values;
  std::string default_type;
};
DecodedPprof decode_pprof(const std::string& gz) {
  std::vector<Field> fields = decode(gunzip(gz));
  std::vector<std::string> strings;
  for (const Field& f : fields) {
    if (f.number == 6) strings.push_back(f.bytes);
  }
  DecodedPprof out;
  for (const Field& f : fields) {
    if (f.number == 1) {
      auto vt = decode(f.bytes);
      out.sample_types.push_back(strings.at(vt[0].varint) + "/" + strings.at(vt[1].varint));
    } else if (f.number == 2) {
      for (const Field& g : decode(f.bytes)) {
        if (g.number != 2) continue;
        std::vector<int64_t> v;
        for (uint64_t x : packed(g.bytes)) v.push_back(static_cast<int64_t>(x));
        out.values.push_back(v);
      }
    } else if (f.number == 14) {
      out.default_type = strings.at(f.varint);
    }
  }
  return out;
}

TEST(PprofWriter, SeveralEventsInOneProfileWithZerosWhereAnEventDoesNotApply) {
  const Profile cpu = sample_profile();
  const Profile alloc = alloc_profile();
  EventProfile cpu_event;
  cpu_event.profile = &cpu;
  cpu_event.interval = 10'000'000;
  const EventProfile events[] = {cpu_event, alloc_event(alloc)};
  RunInfo info;
  const DecodedPprof d = decode_pprof(pprof_bytes(events, info));
  EXPECT_EQ(d.sample_types,
            (std::vector<std::string>{"samples/count", "cpu/nanoseconds", "alloc_objects/count", "alloc_space/bytes"}));
  EXPECT_EQ(d.default_type, "cpu");
  int64_t sums[4] = {};
  for (const std::vector<int64_t>& v : d.values) {
    ASSERT_EQ(v.size(), 4u);
    // A sample is of one event: the other event's two values are zero.
    EXPECT_TRUE((v[0] == 0 && v[1] == 0) != (v[2] == 0 && v[3] == 0));
    for (size_t i = 0; i < 4; i++) sums[i] += v[i];
  }
  EXPECT_EQ(sums[0], 5);
  EXPECT_EQ(sums[1], 5 * 10'000'000);  // unweighted: samples x interval
  EXPECT_EQ(sums[2], 3);
  EXPECT_EQ(sums[3], (4 << 20) + 600'000 + 524'288);  // weighted: the weights
}

TEST(HtmlWriter, OnePageWithAFlameGraphPerEvent) {
  const Profile cpu = sample_profile();
  const Profile alloc = alloc_profile();
  EventProfile cpu_event;
  cpu_event.profile = &cpu;
  const EventProfile events[] = {cpu_event, alloc_event(alloc)};
  const std::string page = html_text(events, RunInfo());
  EXPECT_NE(page.find("\"events\":[{\"name\":\"cpu\""), std::string::npos);
  EXPECT_NE(page.find("{\"name\":\"alloc\",\"info\":\"alloc, interval 512 KiB, 3 samples, 5318592 bytes\","
                      "\"unit\":\"bytes\",\"root\":[0,5,5318592,0,"),
            std::string::npos);
  EXPECT_NE(page.find("<select id=\"event\""), std::string::npos);
}

TEST(Writers, CollapsedOutputOfSeveralEventsIsAFilePerEvent) {
  const Profile cpu = sample_profile();
  const Profile alloc = alloc_profile();
  EventProfile cpu_event;
  cpu_event.profile = &cpu;
  const EventProfile events[] = {cpu_event, alloc_event(alloc)};
  char dir[] = "/tmp/jvmkit-writers-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  Options options;
  options.format = OutputFormat::kCollapsed;
  options.annotate = true;
  options.file = std::string(dir) + "/out.collapsed";
  std::vector<WrittenFile> files;
  ASSERT_FALSE(write_profiles(events, options, RunInfo(), &files));
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, std::string(dir) + "/out.cpu.collapsed");
  EXPECT_EQ(files[1].path, std::string(dir) + "/out.alloc.collapsed");
  EXPECT_EQ(files[1].event, 1u);
  auto read = [](const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "rb");
    std::string text;
    if (f == nullptr) return text;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof(buf), f)) > 0;) text.append(buf, n);
    std::fclose(f);
    return text;
  };
  EXPECT_EQ(read(files[0].path), collapsed_text(cpu, true));
  EXPECT_EQ(read(files[1].path), collapsed_text(alloc, true, nullptr, true));
  EXPECT_TRUE(read(options.file).empty());  // no file of the given name
  // One event: the given file, as before.
  ASSERT_FALSE(write_profiles(std::span<const EventProfile>(events, 1), options, RunInfo(), &files));
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path, options.file);
  for (const char* name : {"/out.cpu.collapsed", "/out.alloc.collapsed", "/out.collapsed"}) {
    std::remove((std::string(dir) + name).c_str());
  }
  rmdir(dir);
}

}  // namespace
}  // namespace jvmkit::prof
