#include "convert/profile_set.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "convert/sample_filter.hpp"
#include "profiler/outputs/writers.hpp"

namespace jvmkit::convert {
namespace {

using prof::FrameType;

Sample sample(std::string_view event, int64_t time, std::vector<SampleFrame>* frames, int64_t weight = 0) {
  Sample s;
  s.event = event;
  s.time_ns = time;
  s.timed = true;
  s.os_tid = 7;
  s.thread = "worker";
  s.frames = *frames;
  s.weight = weight;
  return s;
}

std::string collapsed(ProfileSet& set, size_t event = 0, bool total = false) {
  const auto events = set.event_profiles(total);
  return prof::collapsed_text(*events.at(event).profile, false, nullptr, total);
}

// Leaf first, as the inputs hand frames out.
std::vector<SampleFrame> a_b_c = {{"c", FrameType::kJit, 0}, {"b", FrameType::kJit, 0}, {"a", FrameType::kJit, 0}};
std::vector<SampleFrame> a_d = {{"d", FrameType::kJit, 0}, {"a", FrameType::kJit, 0}};

TEST(ProfileSet, KeepsEventsApartAndCountsOrWeighs) {
  ProfileSet set(false, false);
  set.add(sample("cpu", 10, &a_b_c, 1'000'000));
  set.add(sample("cpu", 20, &a_b_c, 1'000'000));
  set.add(sample("cpu", 30, &a_d, 1'000'000));
  set.add(sample("alloc", 40, &a_d, 4096));
  EXPECT_EQ(collapsed(set, 0), "a;b;c 2\na;d 1\n");
  EXPECT_EQ(collapsed(set, 0, true), "a;b;c 2000000\na;d 1000000\n");
  EXPECT_EQ(collapsed(set, 1, true), "a;d 4096\n");
  EXPECT_EQ(set.samples(), 4);
  EXPECT_EQ(set.first_ns(), 10);
  EXPECT_EQ(set.last_ns(), 40);
  EXPECT_EQ(set.event_profiles(false).at(0).interval, 1'000'000);
}

TEST(ProfileSet, ReverseMakesTheLeavesTheRoots) {
  ProfileSet set(true, true);
  set.add(sample("cpu", 10, &a_b_c));
  set.add(sample("cpu", 20, &a_d));
  EXPECT_EQ(collapsed(set), "[worker tid=7];c;b;a 1\n[worker tid=7];d;a 1\n");
}

TEST(ProfileSet, ClassLeafAndTruncatedRoot) {
  ProfileSet set(false, false);
  Sample s = sample("alloc", 1, &a_d, 64);
  s.leaf_class = "byte[]";
  s.truncated = true;
  set.add(s);
  EXPECT_EQ(collapsed(set, 0, true), "[truncated];a;d;byte[] 64\n");
}

TEST(SampleFilter, TimesThreadsEventsAndPatterns) {
  ConvertOptions o;
  o.from = TimePoint{true, 10, 0, false};
  o.to = TimePoint{true, 30, 0, false};
  SampleFilter filter(o);
  EXPECT_FALSE(filter.keep(sample("cpu", 1000, &a_b_c)));  // the first sample: the base, before --from
  EXPECT_TRUE(filter.keep(sample("cpu", 1010, &a_b_c)));
  EXPECT_TRUE(filter.keep(sample("cpu", 1029, &a_b_c)));
  EXPECT_FALSE(filter.keep(sample("cpu", 1030, &a_b_c)));
  EXPECT_FALSE(filter.keep(sample("cpu", 1009, &a_b_c)));

  ConvertOptions p;
  p.event = "cpu";
  p.threads = "^work";
  p.include = {"^b$"};
  p.exclude = {"c"};
  SampleFilter f2(p);
  EXPECT_FALSE(f2.keep(sample("cpu", 1, &a_b_c)));  // excluded by c
  std::vector<SampleFrame> a_b = {{"b", FrameType::kJit, 0}, {"a", FrameType::kJit, 0}};
  EXPECT_TRUE(f2.keep(sample("cpu", 1, &a_b)));
  EXPECT_FALSE(f2.keep(sample("alloc", 1, &a_b)));  // another event
  EXPECT_FALSE(f2.keep(sample("cpu", 1, &a_d)));    // no frame matches the include
  Sample other = sample("cpu", 1, &a_b);
  other.thread = "main";
  EXPECT_FALSE(f2.keep(other));

  ConvertOptions by_id;
  by_id.threads = "7";
  SampleFilter f3(by_id);
  EXPECT_TRUE(f3.keep(sample("cpu", 1, &a_b)));
  other.os_tid = 8;
  EXPECT_FALSE(f3.keep(other));
}

TEST(SampleFilter, UntimedSamplesAreLeftOutOfATimeRange) {
  ConvertOptions o;
  o.from = TimePoint{true, 10, 0, false};
  SampleFilter filter(o);
  Sample s = sample("cpu", 0, &a_b_c);
  s.timed = false;
  s.count = 5;
  EXPECT_FALSE(filter.keep(s));
  EXPECT_EQ(filter.untimed(), 5);
}

TEST(CollapsedInput, ReadsSuffixesThreadsAndClasses) {
  const std::string path = ::testing::TempDir() + "/input.collapsed";
  std::ofstream(path) << "# a comment\n[main tid=1];a_[j];b_[i];byte[]_[k] 3\na;d 2\n";
  std::vector<std::string> seen;
  Error e = read_collapsed_samples(path, "alloc", [&](const Sample& s) {
    std::string line = std::string(s.event) + " " + std::string(s.thread) + " " + std::string(s.leaf_class) + ":";
    for (const SampleFrame& f : s.frames)
      line += " " + std::string(f.name) + "/" + std::to_string(static_cast<int>(f.type));
    seen.push_back(line + " x" + std::to_string(s.count));
    return true;
  });
  ASSERT_FALSE(e) << e.message();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], "alloc [main tid=1] byte[]: b/2 a/1 [main tid=1]/4 x3");
  EXPECT_EQ(seen[1], "alloc  : d/1 a/1 x2");
}

TEST(CollapsedInput, ABadLineNamesItsNumberAndByte) {
  const std::string path = ::testing::TempDir() + "/bad.collapsed";
  std::ofstream(path) << "a;b 1\nno count here\n";
  int samples = 0;
  Error e = read_collapsed_samples(path, "cpu", [&](const Sample&) { return ++samples > 0; });
  ASSERT_TRUE(e);
  EXPECT_EQ(e.message(), path + ": line 2 (byte 6) is not \"frame;frame;... count\"");
  EXPECT_EQ(samples, 1);
}

}  // namespace
}  // namespace jvmkit::convert
