// The call tree: samples merge by frame, totals and selves add up, top methods by self samples.
#include "profiler/profile.hpp"

#include <gtest/gtest.h>

namespace jvmkit::prof {
namespace {

Frame f(uint32_t m, FrameType t = FrameType::kJit, int32_t line = 0) { return Frame{m, t, line}; }

TEST(Profile, SamplesWithTheSameFramesShareNodes) {
  Profile p;
  uint32_t main = p.add_method("Main.main", "Main.java");
  uint32_t a = p.add_method("Main.a", "Main.java");
  uint32_t b = p.add_method("Main.b", "Main.java");
  p.add_sample({f(a), f(main)});  // leaf first
  p.add_sample({f(a), f(main)});
  p.add_sample({f(b), f(main)});
  p.add_sample({f(main)});
  EXPECT_EQ(p.total_samples(), 4);
  EXPECT_EQ(p.max_depth(), 2u);
  const auto& nodes = p.nodes();
  ASSERT_EQ(nodes.size(), 4u);  // root, main, a, b
  ASSERT_EQ(nodes[Profile::kRoot].children.size(), 1u);
  const Profile::Node& main_node = nodes[nodes[Profile::kRoot].children[0]];
  EXPECT_EQ(main_node.frame.method, main);
  EXPECT_EQ(main_node.total, 4);
  EXPECT_EQ(main_node.self, 1);
  ASSERT_EQ(main_node.children.size(), 2u);
  EXPECT_EQ(nodes[main_node.children[0]].total, 2);
  EXPECT_EQ(nodes[main_node.children[1]].total, 1);
}

TEST(Profile, TypeAndLineAreDistinctFrames) {
  Profile p;
  uint32_t m = p.add_method("M.m", "");
  p.add_sample({f(m, FrameType::kJit, 1)});
  p.add_sample({f(m, FrameType::kInterpreted, 1)});
  p.add_sample({f(m, FrameType::kJit, 2)});
  p.add_sample({f(m, FrameType::kJit, 1)});
  EXPECT_EQ(p.nodes()[Profile::kRoot].children.size(), 3u);
}

TEST(Profile, EmptyTraceAddsNothing) {
  Profile p;
  p.add_sample({});
  EXPECT_EQ(p.total_samples(), 0);
  EXPECT_EQ(p.nodes().size(), 1u);
}

TEST(Profile, TopMethodsBySelfSamplesMergedByName) {
  Profile p;
  uint32_t main = p.add_method("Main.main", "");
  uint32_t hot1 = p.add_method("Hot.run", "");
  uint32_t hot2 = p.add_method("Hot.run", "");  // the same name from another class loader
  uint32_t cold = p.add_method("Cold.run", "");
  for (int i = 0; i < 3; i++) p.add_sample({f(hot1), f(main)});
  for (int i = 0; i < 2; i++) p.add_sample({f(hot2), f(main)});
  for (int i = 0; i < 4; i++) p.add_sample({f(cold), f(main)});
  auto top = top_methods(p, 10);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].name, "Hot.run");
  EXPECT_EQ(top[0].samples, 5);
  EXPECT_EQ(top[1].name, "Cold.run");
  EXPECT_EQ(top[1].samples, 4);
  EXPECT_EQ(top_methods(p, 1).size(), 1u);
}

TEST(Profile, DeepStacks) {
  Profile p;
  uint32_t rec = p.add_method("R.recurse", "");
  std::vector<Frame> frames(1500, f(rec));
  p.add_sample(frames);
  p.add_sample(frames);
  EXPECT_EQ(p.max_depth(), 1500u);
  EXPECT_EQ(p.nodes().size(), 1501u);
  EXPECT_EQ(p.nodes().back().self, 2);
}

}  // namespace
}  // namespace jvmkit::prof
