// Profile: the samples of a run, aggregated into a call tree as they are delivered.
//
// Frames are keyed by (method, frame type, source line); a method is an interned name
// ("java.lang.String.hashCode") with its source file, resolved while its class was pinned (so
// names never go stale, unlike profilers that resolve jmethodIDs when they write the output).
// Different jmethodIDs with the same name (a class loaded twice) get separate method entries; the
// writers merge by name. Not thread-safe, for readers either (nodes() completes the totals): it is
// only touched by the stack-walk delivery thread while sampling, and by the writer after sampling
// stopped.
//
// Bounded: the profile lives in the agent from one dump to the next, and a program that keeps
// making new stacks (random recursion, generated classes) would otherwise grow it for as long as
// it runs. ProfileLimits caps the call tree and the method table; past a limit, samples are still
// counted, under a synthetic "[overflow]" frame, and the profile says how many (overflow_samples).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profiler/context/label_sets.hpp"

namespace jvmkit::prof {

enum class FrameType : uint8_t {
  kInterpreted = 0,
  kJit = 1,
  kInlined = 2,
  kNative = 3,
  kThread = 4,  // the synthetic root frame of a thread ("threads" option)
  // A frame the profile stands in for frames it cannot hold: "[overflow]" (past a limit) and
  // "[truncated]" (the stack was cut at the depth limit). The flame graph page draws type 5 like
  // its "all" root: grey, without a type in the tooltip.
  kSynthetic = 5,
  // The class a sample is about, as its leaf frame: the allocated class (alloc), the class of the
  // lock waited for (lock). async-profiler's collapsed suffix _[k].
  kClass = 6,
  // Native frames (cstack=native, native_frames.hpp): C/C++ of a loaded object other than libjvm,
  // the JVM's own code (libjvm, HotSpot's stubs), and the kernel. Where a native part ends short
  // of the frames below it, a kSynthetic frame names why ("[no unwind info]").
  kNativeCode = 7,
  kJvm = 8,
  kKernel = 9,
  // The request-context labels of the samples below it (org.jvmkit.JvmkitContext): always the
  // outermost frame of a stack, named "[endpoint=/a,tenant=x]", its labels kept by the profile
  // (Profile::labels_of). Writers turn it into what their format has for labels.
  kLabels = 10,
};

// async-profiler's collapsed-stack suffixes: _[0] interpreted, _[j] JIT, _[i] inlined, _[k] a class
// (allocated, or locked); ours add _[n] for native methods and _[K] for kernel frames (async-profiler
// marks those _[k], which is taken by classes here). Empty for a thread root, a synthetic frame and
// C/C++ and JVM frames (flamegraph.pl colours names with "::" as C++ by themselves).
const char* frame_type_suffix(FrameType type);

// Whether frames of TYPE are native ones (C/C++, JVM, kernel).
bool is_native_frame_type(FrameType type);

struct Method {
  std::string name;  // "pkg.Class.method" (or "[thread name tid=N]" for a thread root)
  std::string file;  // source file name, "" when unknown; a native frame's: its object's file name
  // A native frame's object (its path, "[vdso]", "[kernel.kallsyms]"...) as an index into
  // Profile::objects(); 0 for every other frame.
  uint32_t object = 0;
  // A Java method's JVM descriptor ("(I)V"), for the JFR output; "" for every other frame.
  std::string descriptor;
};

struct Frame {
  uint32_t method = 0;  // index into Profile::methods()
  FrameType type = FrameType::kJit;
  int32_t line = 0;  // source line, 0 when unknown
  // A Java frame's bytecode index, -1 when unknown. It tells apart two calls on one line, which
  // the JFR output keeps apart; the other outputs merge frames by name and line.
  int32_t bci = -1;
  bool operator==(const Frame& o) const {
    return method == o.method && type == o.type && line == o.line && bci == o.bci;
  }
};

// The size limits of a Profile, fixed at construction. A call-tree node takes about 150 bytes
// (memory_bytes() and resident memory, measured 2026-12 with libstdc++ and glibc's malloc: the node,
// its hash-map entry, its share of the children lists), so a profile full at the default limits
// holds about 150 MB of tree, and at most about 50 MB of method table (max_method_bytes of names
// and files, with their allocation overhead, and a 64-byte entry per method).
struct ProfileLimits {
  // Call-tree nodes, the root included (at least 1, at most 2^31: node indices are 32-bit; the
  // constructor clamps it, and overflow_nodes to 2^30). A sample whose stack would need a node past
  // it ends, at the deepest node of its stack that exists, in an "[overflow]" child of that node:
  // its known callers are kept, its unknown callees merged.
  size_t max_nodes = 1'000'000;
  // "[overflow]" nodes that may be made past max_nodes. Once they are used up, samples that
  // overflow under a node without one go to the root's "[overflow]" child, which may always be
  // made: nodes().size() <= max_nodes + overflow_nodes + 1 whatever is sampled.
  size_t overflow_nodes = 4'096;
  // Methods added by add_method, and the bytes of their names and files (string lengths). Past
  // either, add_method returns the "[overflow]" method. The two synthetic methods ("[overflow]",
  // "[truncated]") are outside the limits: methods().size() <= max_methods + 2.
  size_t max_methods = 200'000;
  size_t max_method_bytes = size_t{32} << 20;
};

class Profile {
 public:
  static constexpr uint32_t kRoot = 0;
  static constexpr const char* kOverflowName = "[overflow]";
  static constexpr const char* kTruncatedName = "[truncated]";

  struct Node {
    Frame frame;
    uint32_t parent = 0;
    int64_t self = 0;   // samples whose leaf frame is this node
    int64_t total = 0;  // samples through this node (self included)
    // The samples' weights (bytes, nanoseconds, or the interval of a sample), likewise.
    int64_t self_weight = 0;
    int64_t total_weight = 0;
    std::vector<uint32_t> children;
  };

  explicit Profile(ProfileLimits limits = {});

  // Adds a method; returns its index, or overflow_method() when the method table is at one of its
  // limits (counted in methods_refused()). OBJECT: a native frame's object path (kept once per
  // path, its bytes counted with the method's), "" for every other frame. DESCRIPTOR: a Java
  // method's JVM descriptor, counted with its name.
  uint32_t add_method(std::string name, std::string file, std::string_view object = {}, std::string descriptor = {});
  const std::vector<Method>& methods() const { return methods_; }
  // The object paths of native frames' methods; objects()[0] is "" (no object).
  const std::vector<std::string>& objects() const { return objects_; }
  // Whether add_method refuses every method now (the count limit is reached, or all the bytes are
  // used): a caller may then skip looking the name up.
  bool methods_full() const;

  // The synthetic methods, added to the table the first time they are asked for (so a profile
  // that never needs them does not name them). A frame of the overflow method (a method
  // add_method refused) keeps its type; its line is dropped, being a line of an unknown method.
  uint32_t overflow_method();
  uint32_t truncated_method();
  // The method of a label frame (FrameType::kLabels): named "[" + labels_text(LABELS) + "]", with
  // LABELS kept for labels_of. As add_method, overflow_method() past the limits.
  uint32_t add_labels_method(std::vector<Label> labels);
  // The labels of METHOD if add_labels_method made it, else null.
  const std::vector<Label>* labels_of(uint32_t method) const;
  bool is_overflow_method(uint32_t method) const { return method == overflow_method_; }
  // The frame a caller appends at the root end of a trace (after its outermost Java frame, before
  // a thread root) that was cut at the depth limit.
  Frame truncated_frame() { return Frame{truncated_method(), FrameType::kSynthetic, 0}; }

  // Adds one sample of WEIGHT. FRAMES are leaf first (the order a stack walk delivers them); the
  // root frame (the thread's, when split by thread) is the last. An empty trace adds nothing; any
  // other adds exactly one sample to total_samples() and WEIGHT to total_weight(), past the limits
  // too.
  // Returns the node the sample was counted in (kRoot for an empty trace). COUNT > 1 adds that
  // many samples of the stack at once (WEIGHT is then their total): a converted profile's line.
  uint32_t add_sample(const std::vector<Frame>& leaf_first, int64_t weight = 1, int64_t count = 1);
  // Adds COUNT samples of WEIGHT (their total) at NODE, a node add_sample returned: the samples of
  // a stack added before, without walking its frames again (the converter's cache of stacks).
  void add_sample_at(uint32_t node, int64_t weight, int64_t count = 1);
  // Takes back a sample of WEIGHT that add_sample counted in NODE (alloc's live option: its object
  // was freed). Its nodes stay, with smaller counts; writers leave out what counts nothing.
  void remove_sample(uint32_t node, int64_t weight);

  // nodes()[kRoot] is the tree's root. The nodes' totals are brought up to date here, once after
  // samples were added: a reader that is const still writes, so readers take turns like writers.
  const std::vector<Node>& nodes() const;
  int64_t total_samples() const { return nodes_[kRoot].total; }
  int64_t total_weight() const { return nodes_[kRoot].total_weight; }
  size_t max_depth() const { return max_depth_; }

  const ProfileLimits& limits() const { return limits_; }
  // Samples merged into an "[overflow]" frame because their stack needed a node past max_nodes:
  // "N samples past the profile's limit of max_nodes stacks, merged into [overflow]".
  int64_t overflow_samples() const { return overflow_samples_; }
  // Samples with a truncated_method() frame.
  int64_t truncated_samples() const { return truncated_samples_; }
  // add_method calls answered with overflow_method().
  int64_t methods_refused() const { return methods_refused_; }

  // An estimate of the heap this profile holds: the node array, the children lists, the hash map
  // of children, the method table and its strings, each allocation counted as glibc's malloc
  // rounds it. It follows the limits: it stops growing once they are reached.
  size_t memory_bytes() const;

 private:
  static constexpr uint32_t kNone = UINT32_MAX;

  struct ChildKey {
    uint32_t parent;
    Frame frame;
    bool operator==(const ChildKey& o) const { return parent == o.parent && frame == o.frame; }
  };
  struct ChildKeyHash {
    size_t operator()(const ChildKey& k) const;
  };

  uint32_t push_method(std::string name, std::string file, std::string descriptor = {});
  uint32_t add_node(uint32_t parent, const Frame& frame);
  uint32_t overflow_child(uint32_t parent);

  ProfileLimits limits_;
  std::vector<Method> methods_;
  std::vector<std::string> objects_{std::string()};
  std::unordered_map<std::string, uint32_t> object_ids_;
  std::unordered_map<uint32_t, std::vector<Label>> method_labels_;
  mutable std::vector<Node> nodes_;  // the totals below the root are stale while totals_stale_
  mutable bool totals_stale_ = false;
  std::unordered_map<ChildKey, uint32_t, ChildKeyHash> children_;
  std::vector<uint32_t> last_path_;  // the nodes of the last sample added, root first
  std::vector<Frame> last_frames_;   // and their frames
  size_t max_depth_ = 0;

  uint32_t overflow_method_ = kNone;
  uint32_t truncated_method_ = kNone;
  size_t added_methods_ = 0;        // by add_method (the synthetic ones are not counted)
  size_t method_bytes_ = 0;         // lengths of their names and files
  size_t overflow_nodes_made_ = 0;  // "[overflow]" nodes below nodes other than the root
  int64_t overflow_samples_ = 0;
  int64_t truncated_samples_ = 0;
  int64_t methods_refused_ = 0;

  // For memory_bytes(): heap blocks of the children lists and of the method strings.
  size_t children_heap_bytes_ = 0;
  size_t method_heap_bytes_ = 0;
};

// Method names with their self-sample counts (or self weights: BY_WEIGHT), largest first, merged
// by name (at most LIMIT).
struct MethodCount {
  std::string name;
  int64_t samples;
};
std::vector<MethodCount> top_methods(const Profile& profile, size_t limit, bool by_weight = false);

}  // namespace jvmkit::prof
