// Native frames change nothing for a profile without them: the writers give the bytes they gave
// before native frames existed (tests/profiler/golden/, written by the writers of that time from
// the profiles of java_only_profiles.hpp), and a run without cstack=native adds no native frame.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "java_only_profiles.hpp"
#include "pprof_decode.hpp"
#include "profiler/options.hpp"

namespace jvmkit::prof {
namespace {

std::string golden(const std::string& name) {
  std::ifstream in(std::string(JVMKIT_SOURCE_DIR) + "/tests/profiler/golden/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read golden/" << name;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// The first byte where A and B differ, with some context, for a readable failure.
std::string first_difference(const std::string& a, const std::string& b) {
  size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at]) at++;
  const size_t from = at > 40 ? at - 40 : 0;
  return "at byte " + std::to_string(at) + " (sizes " + std::to_string(a.size()) + ", " + std::to_string(b.size()) +
         "):\n  now:    " + a.substr(from, 80) + "\n  before: " + b.substr(from, 80);
}

// The HTML page's script and style are the template's, which changes with the page's features;
// what must not change is the data a profile puts in it: the line "var DATA = ...;".
std::string html_data(const std::string& page) {
  const size_t at = page.find("var DATA = ");
  return at == std::string::npos ? page : page.substr(at, page.find('\n', at) - at);
}

TEST(JavaOnlyOutput, EveryWriterGivesTheBytesOfBeforeNativeFrames) {
  const auto outputs = golden::java_only_outputs(pprof_test::gunzip);
  ASSERT_EQ(outputs.size(), 10u);
  for (const golden::Output& o : outputs) {
    const std::string before = golden(o.name);
    if (o.name.ends_with(".html")) {
      EXPECT_EQ(html_data(o.bytes), html_data(before)) << o.name << "'s data differs";
      continue;
    }
    EXPECT_EQ(o.bytes, before) << o.name << " differs " << first_difference(o.bytes, before);
  }
}

TEST(JavaOnlyOutput, TheProfilesHoldNoNativeFrames) {
  for (const Profile& p : {golden::cpu_profile(), golden::overflow_profile(), golden::alloc_profile()}) {
    for (const Profile::Node& n : p.nodes()) EXPECT_FALSE(is_native_frame_type(n.frame.type));
    EXPECT_EQ(p.objects().size(), 1u);  // only "": no native frame's object
  }
}

// Java frames only where asked (cstack=no) or where no signal event is sampled; mixed stacks by
// default otherwise, an attached command's too.
TEST(JavaOnlyOutput, NoNativeFramesWhereAskedOrWithoutASignalEvent) {
  for (const char* text : {"cstack=no", "event=wall,cstack=no", "event=alloc", "event=alloc,lock"}) {
    Options o;
    ASSERT_FALSE(parse_options(text, 1, &o)) << text;
    EXPECT_EQ(o.cstack, CStack::kNo) << text;
  }
  for (const char* text : {"", "event=wall", "event=cpu,alloc,lock", "start", "stop"}) {
    Options o;
    ASSERT_FALSE(parse_options(text, 1, &o)) << text;
    EXPECT_EQ(o.cstack, CStack::kNative) << text;
  }
}

}  // namespace
}  // namespace jvmkit::prof
