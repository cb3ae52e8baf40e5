#include "convert/profile_set.hpp"

#include <algorithm>

#include "profiler/event_spec.hpp"

namespace jvmkit::convert {

ProfileSet::Event& ProfileSet::event(std::string_view name) {
  for (auto& e : events_)
    if (e->name == name) return *e;
  events_.push_back(std::make_unique<Event>());
  events_.back()->name = std::string(name);
  return *events_.back();
}

uint32_t ProfileSet::method(Event& e, std::string_view name) {
  key_.assign(name);
  auto it = e.methods.find(key_);
  if (it != e.methods.end()) return it->second;
  const uint32_t id = e.profile.add_method(key_, "");
  if (!e.profile.is_overflow_method(id)) e.methods.emplace(key_, id);
  return id;
}

void ProfileSet::add(const Sample& s) {
  Event& e = event(s.event);
  if (s.timed) {
    first_ns_ = first_ns_ == 0 ? s.time_ns : std::min(first_ns_, s.time_ns);
    last_ns_ = std::max(last_ns_, s.time_ns);
  }
  if (e.interval == 0 && s.weight > 0 && s.count == 1 && (s.event == "cpu" || s.event == "wall")) e.interval = s.weight;
  const int64_t weight = s.weight > 0 ? s.weight : s.count;
  const uint32_t node = node_of(e, s, weight);
  if (cells_ && s.timed) e.cells.add(s.time_ns, node, s.count, weight);
}

// Counts S in E's profile; returns its node.
uint32_t ProfileSet::node_of(Event& e, const Sample& s, int64_t weight) {
  const CacheKey key{s.stack_id, split_threads_ ? s.os_tid : 0, s.leaf_class.data()};
  if (s.stack_id != 0) {
    if (s.stack_epoch != e.epoch) {
      e.nodes.clear();
      e.epoch = s.stack_epoch;
    }
    auto it = e.nodes.find(key);
    if (it != e.nodes.end()) {
      if (e.pending.size() <= it->second) e.pending.resize(it->second + 1);
      e.pending[it->second].first += s.count;
      e.pending[it->second].second += weight;
      return it->second;
    }
  }
  frames_.clear();
  if (!s.leaf_class.empty()) frames_.push_back({method(e, s.leaf_class), prof::FrameType::kClass, 0});
  for (const SampleFrame& f : s.frames) frames_.push_back({method(e, f.name), f.type, f.line});
  if (s.truncated) frames_.push_back(e.profile.truncated_frame());
  // Reversed, the leaf is the root: the tree's first level holds the hottest callees, each with
  // its callers below it (a thread's root frame stays the root).
  if (reverse_) std::reverse(frames_.begin(), frames_.end());
  if (split_threads_ && !s.thread.empty()) {
    const std::string root = "[" + std::string(s.thread) + " tid=" + std::to_string(s.os_tid) + "]";
    frames_.push_back({method(e, root), prof::FrameType::kThread, 0});
  }
  const uint32_t node = e.profile.add_sample(frames_, weight, s.count);
  if (s.stack_id != 0) e.nodes.emplace(key, node);
  return node;
}

bool ProfileSet::has_cells() const {
  for (const auto& e : events_)
    if (!e->cells.empty()) return true;
  return false;
}

void ProfileSet::Event::flush() {
  for (uint32_t node = 0; node < pending.size(); node++) {
    if (pending[node].first != 0 || pending[node].second != 0) {
      profile.add_sample_at(node, pending[node].second, pending[node].first);
    }
  }
  pending.clear();
}

std::vector<prof::EventProfile> ProfileSet::event_profiles(bool total) {
  std::vector<prof::EventProfile> out;
  for (const auto& e : events_) {
    e->flush();
    prof::EventProfile p;
    if (cells_) {
      e->finished = e->cells.finish();
      if (e->finished.cells > 0) p.cells = &e->finished;
    }
    p.profile = &e->profile;
    p.event = e->name;
    p.description = e->name;
    p.weighted = total;
    p.interval = e->interval;
    if (const prof::EventSpec* spec = prof::find_event(e->name)) {
      p.count_type = std::string(spec->pprof_count_type);
      p.value_type = std::string(spec->pprof_type);
      p.value_unit = std::string(spec->pprof_unit);
    } else {
      p.value_type = e->name;
      p.value_unit = "count";
    }
    out.push_back(std::move(p));
  }
  return out;
}

int64_t ProfileSet::samples() const {
  int64_t n = 0;
  for (const auto& e : events_) n += e->profile.total_samples();
  return n;
}

}  // namespace jvmkit::convert
