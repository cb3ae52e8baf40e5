// Profile: the samples of a run, aggregated into a call tree as they are delivered.
//
// Frames are keyed by (method, frame type, source line); a method is an interned name
// ("java.lang.String.hashCode") with its source file, resolved while its class was pinned (so
// names never go stale, unlike profilers that resolve jmethodIDs when they write the output).
// Different jmethodIDs with the same name (a class loaded twice) get separate method entries; the
// writers merge by name. Not thread-safe: it is only touched by the stack-walk delivery thread
// while sampling, and by the writer after sampling stopped.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace jvmkit::prof {

enum class FrameType : uint8_t {
  kInterpreted = 0,
  kJit = 1,
  kInlined = 2,
  kNative = 3,
  kThread = 4,  // the synthetic root frame of a thread ("threads" option)
};

// async-profiler's collapsed-stack suffixes: _[0] interpreted, _[j] JIT, _[i] inlined; ours add
// _[n] for native methods. Empty for a thread root.
const char* frame_type_suffix(FrameType type);

struct Method {
  std::string name;  // "pkg.Class.method" (or "[thread name tid=N]" for a thread root)
  std::string file;  // source file name, "" when unknown
};

struct Frame {
  uint32_t method = 0;  // index into Profile::methods()
  FrameType type = FrameType::kJit;
  int32_t line = 0;  // source line, 0 when unknown
  bool operator==(const Frame& o) const { return method == o.method && type == o.type && line == o.line; }
};

class Profile {
 public:
  static constexpr uint32_t kRoot = 0;

  struct Node {
    Frame frame;
    uint32_t parent = 0;
    int64_t self = 0;   // samples whose leaf frame is this node
    int64_t total = 0;  // samples through this node (self included)
    std::vector<uint32_t> children;
  };

  Profile();

  // Adds a method; returns its index.
  uint32_t add_method(std::string name, std::string file);
  const std::vector<Method>& methods() const { return methods_; }

  // Adds one sample. FRAMES are leaf first (the order a stack walk delivers them); the root
  // frame (the thread's, when split by thread) is the last. An empty trace adds nothing.
  void add_sample(const std::vector<Frame>& leaf_first);

  const std::vector<Node>& nodes() const { return nodes_; }  // nodes()[kRoot] is the tree's root
  int64_t total_samples() const { return nodes_[kRoot].total; }
  size_t max_depth() const { return max_depth_; }

 private:
  struct ChildKey {
    uint32_t parent;
    Frame frame;
    bool operator==(const ChildKey& o) const { return parent == o.parent && frame == o.frame; }
  };
  struct ChildKeyHash {
    size_t operator()(const ChildKey& k) const;
  };

  std::vector<Method> methods_;
  std::vector<Node> nodes_;
  std::unordered_map<ChildKey, uint32_t, ChildKeyHash> children_;
  size_t max_depth_ = 0;
};

// Method names with their self-sample counts, largest first, merged by name (at most LIMIT).
struct MethodCount {
  std::string name;
  int64_t samples;
};
std::vector<MethodCount> top_methods(const Profile& profile, size_t limit);

}  // namespace jvmkit::prof
