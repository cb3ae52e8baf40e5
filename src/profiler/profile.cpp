#include "profiler/profile.hpp"

#include <algorithm>
#include <map>

namespace jvmkit::prof {

const char* frame_type_suffix(FrameType type) {
  switch (type) {
    case FrameType::kInterpreted:
      return "_[0]";
    case FrameType::kJit:
      return "_[j]";
    case FrameType::kInlined:
      return "_[i]";
    case FrameType::kNative:
      return "_[n]";
    case FrameType::kThread:
      return "";
  }
  return "";
}

size_t Profile::ChildKeyHash::operator()(const ChildKey& k) const {
  uint64_t h = (static_cast<uint64_t>(k.parent) << 32) ^ k.frame.method;
  h = h * 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(k.frame.line) << 8 | static_cast<uint8_t>(k.frame.type));
  return static_cast<size_t>(h * 0xBF58476D1CE4E5B9ull >> 7);
}

Profile::Profile() { nodes_.emplace_back(); }

uint32_t Profile::add_method(std::string name, std::string file) {
  methods_.push_back(Method{std::move(name), std::move(file)});
  return static_cast<uint32_t>(methods_.size() - 1);
}

void Profile::add_sample(const std::vector<Frame>& leaf_first) {
  if (leaf_first.empty()) return;
  max_depth_ = std::max(max_depth_, leaf_first.size());
  uint32_t node = kRoot;
  nodes_[kRoot].total++;
  for (auto it = leaf_first.rbegin(); it != leaf_first.rend(); ++it) {
    ChildKey key{node, *it};
    auto [pos, inserted] = children_.try_emplace(key, static_cast<uint32_t>(nodes_.size()));
    if (inserted) {
      Node child;
      child.frame = *it;
      child.parent = node;
      nodes_.push_back(std::move(child));
      nodes_[node].children.push_back(pos->second);
    }
    node = pos->second;
    nodes_[node].total++;
  }
  nodes_[node].self++;
}

std::vector<MethodCount> top_methods(const Profile& profile, size_t limit) {
  std::map<std::string, int64_t> self;
  const auto& nodes = profile.nodes();
  for (size_t i = 1; i < nodes.size(); i++) {
    if (nodes[i].self > 0) self[profile.methods()[nodes[i].frame.method].name] += nodes[i].self;
  }
  std::vector<MethodCount> out;
  for (auto& [name, n] : self) out.push_back({name, n});
  std::stable_sort(out.begin(), out.end(),
                   [](const MethodCount& a, const MethodCount& b) { return a.samples > b.samples; });
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace jvmkit::prof
