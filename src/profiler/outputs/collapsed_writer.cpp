#include <map>

#include "profiler/outputs/writers.hpp"

namespace jvmkit::prof {

std::string collapsed_text(const Profile& profile, bool annotate, const RunInfo* window, bool weights, bool labels) {
  // Merge by name: two tree nodes whose paths print the same (e.g. the same method at different
  // lines, or JIT and interpreted copies without annotation) are one line.
  std::map<std::string, int64_t> lines;
  const auto& nodes = profile.nodes();
  const auto& methods = profile.methods();
  struct Item {
    uint32_t node;
    size_t prefix_len;
  };
  std::string path;
  std::vector<Item> stack;
  for (uint32_t child : nodes[Profile::kRoot].children) stack.push_back({child, 0});
  while (!stack.empty()) {
    Item item = stack.back();
    stack.pop_back();
    const Profile::Node& n = nodes[item.node];
    path.resize(item.prefix_len);
    if (labels || n.frame.type != FrameType::kLabels) {
      if (!path.empty()) path += ';';
      const std::string& name = methods[n.frame.method].name;
      // ';' separates frames and a line ends a stack; spaces are fine (the count follows the last one).
      for (char c : name) path += (c == ';' || c == '\n' || c == '\r') ? '_' : c;
      if (annotate) path += frame_type_suffix(n.frame.type);
    }
    if (n.self > 0) lines[path] += weights ? n.self_weight : n.self;
    for (uint32_t child : n.children) stack.push_back({child, path.size()});
  }
  std::string out;
  // flamegraph.pl and speedscope skip a line that does not end in a count; a window's time goes
  // there, so a directory of windows can be put in order and stitched together.
  if (window != nullptr) out += "# jvmkit profile: " + window->event + ", from " + window_text(*window) + "\n";
  for (const auto& [stack_text, count] : lines) {
    out += stack_text;
    out += ' ';
    out += std::to_string(count);
    out += '\n';
  }
  return out;
}

}  // namespace jvmkit::prof
