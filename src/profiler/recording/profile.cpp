#include "profiler/recording/profile.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace jvmkit::prof {

namespace {

// The bytes glibc's malloc takes for a request of N: an 8-byte header, 16-byte alignment, 32 at
// least. An estimate for other allocators too; large blocks (mmap) round to pages instead, which
// is lost in their size.
size_t heap_block(size_t n) { return n == 0 ? 0 : std::max<size_t>(32, (n + 8 + 15) & ~size_t{15}); }

// The heap block of a string, 0 when it is held inside the object (the short-string buffer).
size_t string_heap(const std::string& s) {
  static const size_t kInline = std::string().capacity();
  return s.capacity() > kInline ? heap_block(s.capacity() + 1) : 0;
}

size_t saturating_add(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

// Grows V's capacity for one more element, doubling as push_back would, but never past BOUND: a
// vector that may only ever hold BOUND elements must not take twice their memory for its last
// doubling.
template <typename T>
void reserve_one_more(std::vector<T>* v, size_t bound) {
  if (v->size() < v->capacity()) return;
  const size_t doubled = std::max<size_t>(16, v->capacity() * 2);
  v->reserve(std::max(std::min(doubled, bound), v->size() + 1));
}

}  // namespace

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
    case FrameType::kClass:
      return "_[k]";
    case FrameType::kKernel:
      return "_[K]";
    case FrameType::kThread:
    case FrameType::kSynthetic:
    case FrameType::kNativeCode:
    case FrameType::kJvm:
    case FrameType::kLabels:
      return "";
  }
  return "";
}

bool is_native_frame_type(FrameType type) {
  return type == FrameType::kNativeCode || type == FrameType::kJvm || type == FrameType::kKernel;
}

size_t Profile::ChildKeyHash::operator()(const ChildKey& k) const {
  uint64_t h = (static_cast<uint64_t>(k.parent) << 32) ^ k.frame.method;
  h = h * 0x9E3779B97F4A7C15ull ^
      (static_cast<uint64_t>(static_cast<uint32_t>(k.frame.line)) << 8 | static_cast<uint8_t>(k.frame.type) |
       static_cast<uint64_t>(static_cast<uint32_t>(k.frame.bci)) << 40);
  return static_cast<size_t>(h * 0xBF58476D1CE4E5B9ull >> 7);
}

Profile::Profile(ProfileLimits limits) : limits_(limits) {
  // Node indices are 32-bit: max_nodes + overflow_nodes + 1 must fit.
  limits_.max_nodes = std::clamp<size_t>(limits_.max_nodes, 1, UINT32_MAX / 2);
  limits_.overflow_nodes = std::min<size_t>(limits_.overflow_nodes, UINT32_MAX / 4);
  nodes_.emplace_back();
}

bool Profile::methods_full() const {
  return added_methods_ >= limits_.max_methods || method_bytes_ >= limits_.max_method_bytes;
}

uint32_t Profile::add_method(std::string name, std::string file, std::string_view object, std::string descriptor) {
  auto known = object.empty() ? object_ids_.end() : object_ids_.find(std::string(object));
  const bool new_object = !object.empty() && known == object_ids_.end();
  const size_t bytes = name.size() + file.size() + descriptor.size() + (new_object ? object.size() : 0);
  // method_bytes_ <= max_method_bytes always (a method is added only when it fits).
  if (methods_full() || bytes > limits_.max_method_bytes - method_bytes_) {
    methods_refused_++;
    return overflow_method();
  }
  added_methods_++;
  method_bytes_ += bytes;
  uint32_t object_id = 0;
  if (new_object) {
    object_id = static_cast<uint32_t>(objects_.size());
    objects_.emplace_back(object);
    object_ids_.emplace(std::string(object), object_id);
    method_heap_bytes_ += 2 * string_heap(objects_.back());  // the path and its key
  } else if (!object.empty()) {
    object_id = known->second;
  }
  const uint32_t id = push_method(std::move(name), std::move(file), std::move(descriptor));
  methods_[id].object = object_id;
  return id;
}

uint32_t Profile::push_method(std::string name, std::string file, std::string descriptor) {
  reserve_one_more(&methods_, saturating_add(limits_.max_methods, 2));
  // Names are often built by concatenation, with spare capacity: the table keeps them for the
  // whole window, so they are trimmed once here.
  name.shrink_to_fit();
  file.shrink_to_fit();
  descriptor.shrink_to_fit();
  method_heap_bytes_ += string_heap(name) + string_heap(file) + string_heap(descriptor);
  methods_.push_back(Method{std::move(name), std::move(file), 0, std::move(descriptor)});
  return static_cast<uint32_t>(methods_.size() - 1);
}

uint32_t Profile::add_labels_method(std::vector<Label> labels) {
  size_t label_bytes = 0;
  for (const Label& l : labels) label_bytes += l.key.size() + l.value.size();
  const uint32_t id = add_method("[" + labels_text(labels) + "]", "");
  if (id == overflow_method_) return id;
  method_bytes_ += label_bytes;  // the copy kept for labels_of
  method_labels_.emplace(id, std::move(labels));
  return id;
}

const std::vector<Label>* Profile::labels_of(uint32_t method) const {
  auto it = method_labels_.find(method);
  return it != method_labels_.end() ? &it->second : nullptr;
}

uint32_t Profile::overflow_method() {
  if (overflow_method_ == kNone) overflow_method_ = push_method(kOverflowName, "");
  return overflow_method_;
}

uint32_t Profile::truncated_method() {
  if (truncated_method_ == kNone) truncated_method_ = push_method(kTruncatedName, "");
  return truncated_method_;
}

uint32_t Profile::add_node(uint32_t parent, const Frame& frame) {
  const auto index = static_cast<uint32_t>(nodes_.size());
  reserve_one_more(&nodes_, saturating_add(limits_.max_nodes, saturating_add(limits_.overflow_nodes, 1)));
  Node child;
  child.frame = frame;
  child.parent = parent;
  nodes_.push_back(std::move(child));
  std::vector<uint32_t>& siblings = nodes_[parent].children;
  const size_t before = siblings.capacity();
  siblings.push_back(index);
  children_heap_bytes_ += heap_block(siblings.capacity() * sizeof(uint32_t));
  children_heap_bytes_ -= heap_block(before * sizeof(uint32_t));
  children_.emplace(ChildKey{parent, frame}, index);
  return index;
}

// Where a sample goes that needs a node past max_nodes below PARENT, the deepest node of its
// stack that exists. Memory stays bounded because "[overflow]" nodes have no children and there
// are at most overflow_nodes of them below nodes other than the root, plus the root's own.
uint32_t Profile::overflow_child(uint32_t parent) {
  const Frame frame{overflow_method(), FrameType::kSynthetic, 0};
  auto found = children_.find(ChildKey{parent, frame});
  if (found != children_.end()) return found->second;
  if (parent != kRoot) {
    if (overflow_nodes_made_ >= limits_.overflow_nodes) return overflow_child(kRoot);
    overflow_nodes_made_++;
  }
  return add_node(parent, frame);
}

uint32_t Profile::add_sample(const std::vector<Frame>& leaf_first, int64_t weight, int64_t count) {
  if (leaf_first.empty()) return kRoot;
  max_depth_ = std::max(max_depth_, leaf_first.size());
  if (truncated_method_ != kNone && std::any_of(leaf_first.begin(), leaf_first.end(),
                                                [this](const Frame& f) { return f.method == truncated_method_; })) {
    truncated_samples_ += count;
  }
  // Find (or make) the node of the sample first, then count it there and in every ancestor: an
  // overflowing sample may end up outside the path it came down. Samples in a row share most of
  // their path from the root (the same thread, the same loop): as far as the frames agree, the
  // previous sample's nodes are this one's, without a look-up.
  const size_t depth = leaf_first.size();
  const auto frame_at = [&](size_t from_root) {
    Frame frame = leaf_first[depth - 1 - from_root];
    if (frame.method == overflow_method_) frame.line = 0;
    return frame;
  };
  // The last path's frames are compared from an array of their own: the nodes lie all over the
  // node array, and reading each was a cache miss per frame of every sample.
  size_t shared = 0;
  while (shared < last_frames_.size() && shared < depth && last_frames_[shared] == frame_at(shared)) shared++;
  last_path_.resize(shared);
  last_frames_.resize(shared);
  uint32_t node = shared > 0 ? last_path_.back() : kRoot;
  for (size_t i = shared; i < depth; i++) {
    const Frame frame = frame_at(i);
    auto found = children_.find(ChildKey{node, frame});
    if (found != children_.end()) {
      node = found->second;
    } else if (nodes_.size() < limits_.max_nodes) {
      node = add_node(node, frame);
    } else {
      node = overflow_child(node);
      overflow_samples_ += count;
      last_path_.clear();  // the overflow node is no frame's: nothing to share
      last_frames_.clear();
      break;
    }
    last_path_.push_back(node);
    last_frames_.push_back(frame);
  }
  add_sample_at(node, weight, count);
  return node;
}

void Profile::add_sample_at(uint32_t node, int64_t weight, int64_t count) {
  // The ancestors' totals wait for the next reader (nodes()): updating them here touched a node
  // per frame, each a likely cache miss, for every sample. The root's are kept exact.
  nodes_[node].self += count;
  nodes_[node].self_weight += weight;
  nodes_[kRoot].total += count;
  nodes_[kRoot].total_weight += weight;
  totals_stale_ = true;
}

void Profile::remove_sample(uint32_t node, int64_t weight) {
  if (node == kRoot || node >= nodes_.size() || nodes_[node].self <= 0) return;
  nodes_[node].self--;
  nodes_[node].self_weight -= weight;
  nodes_[kRoot].total--;
  nodes_[kRoot].total_weight -= weight;
  totals_stale_ = true;
}

const std::vector<Profile::Node>& Profile::nodes() const {
  if (totals_stale_) {
    // A child is always added after its parent: from the last node back, each node's total is
    // complete when its parent's is reached.
    for (Node& n : nodes_) {
      n.total = n.self;
      n.total_weight = n.self_weight;
    }
    for (size_t i = nodes_.size() - 1; i > kRoot; i--) {
      nodes_[nodes_[i].parent].total += nodes_[i].total;
      nodes_[nodes_[i].parent].total_weight += nodes_[i].total_weight;
    }
    totals_stale_ = false;
  }
  return nodes_;
}

size_t Profile::memory_bytes() const {
  // libstdc++'s hash map node: the next pointer, the key and value, the cached hash.
  constexpr size_t kHashNode = sizeof(void*) + sizeof(std::pair<const ChildKey, uint32_t>) + sizeof(size_t);
  size_t bytes = sizeof(*this);
  bytes += heap_block(nodes_.capacity() * sizeof(Node)) + children_heap_bytes_;
  bytes += heap_block(children_.bucket_count() * sizeof(void*)) + children_.size() * heap_block(kHashNode);
  bytes += heap_block(methods_.capacity() * sizeof(Method)) + method_heap_bytes_;
  // Native frames' objects: a few dozen paths at most (the loaded libraries).
  constexpr size_t kObjectNode = sizeof(void*) + sizeof(std::pair<const std::string, uint32_t>) + sizeof(size_t);
  bytes += heap_block(objects_.capacity() * sizeof(std::string)) + object_ids_.size() * heap_block(kObjectNode);
  return bytes;
}

std::vector<MethodCount> top_methods(const Profile& profile, size_t limit, bool by_weight) {
  std::map<std::string, int64_t> self;
  const auto& nodes = profile.nodes();
  for (size_t i = 1; i < nodes.size(); i++) {
    if (nodes[i].self > 0) {
      self[profile.methods()[nodes[i].frame.method].name] += by_weight ? nodes[i].self_weight : nodes[i].self;
    }
  }
  std::vector<MethodCount> out;
  for (auto& [name, n] : self) out.push_back({name, n});
  std::stable_sort(out.begin(), out.end(),
                   [](const MethodCount& a, const MethodCount& b) { return a.samples > b.samples; });
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace jvmkit::prof
