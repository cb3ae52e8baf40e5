#include "stack_walk/code_snapshot.hpp"

#include <algorithm>

namespace jvmkit::walk {
namespace {

// Whether START is one of the COUNT sorted addresses at HIDDEN.
JVMKIT_SIGNAL_SAFE bool is_hidden(uintptr_t start, const uintptr_t* hidden, size_t count) noexcept {
  size_t lo = 0, hi = count;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (hidden[mid] < start) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < count && hidden[lo] == start;
}

}  // namespace

void link_enclosing(std::vector<CodeRange>& ranges) {
  // A stack of the ranges still open at each entry.
  std::vector<int32_t> open;
  for (size_t i = 0; i < ranges.size(); i++) {
    while (!open.empty() && ranges[static_cast<size_t>(open.back())].end < ranges[i].end) open.pop_back();
    ranges[i].enclosing = open.empty() ? -1 : open.back();
    open.push_back(static_cast<int32_t>(i));
  }
}

CodeLayer::CodeLayer(std::vector<CodeRange> ranges, std::vector<std::shared_ptr<const CallSites>> call_sites)
    : ranges_(std::move(ranges)), call_sites_(std::move(call_sites)) {
  for (const CodeRange& r : ranges_) {
    lowest_ = lowest_ == 0 ? r.start : std::min(lowest_, r.start);
    highest_ = std::max(highest_, r.end);
  }
}

const CodeRange* CodeLayer::find(uintptr_t pc, const uintptr_t* hidden, size_t hidden_count) const noexcept {
  if (pc < lowest_ || pc >= highest_) return nullptr;
  // Last entry whose start is <= pc, then outwards through its enclosing entries.
  size_t lo = 0, hi = ranges_.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (ranges_[mid].start <= pc) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == 0) return nullptr;
  int32_t i = static_cast<int32_t>(lo - 1);
  // Bounded: every step moves to a strictly earlier index.
  while (i >= 0) {
    const CodeRange& r = ranges_[static_cast<size_t>(i)];
    const bool gone = r.kind == CodeKind::kNMethod && is_hidden(r.start, hidden, hidden_count);
    if (pc < r.end && !gone) return &r;
    i = r.enclosing;
  }
  return nullptr;
}

CodeSnapshot::CodeSnapshot(std::vector<CodeRange> ranges, std::vector<std::shared_ptr<const CallSites>> call_sites)
    : CodeSnapshot(std::make_shared<const CodeLayer>(std::move(ranges), std::move(call_sites)), CodeLayer(), {}) {}

CodeSnapshot::CodeSnapshot(std::shared_ptr<const CodeLayer> base, CodeLayer recent, std::vector<uintptr_t> removed)
    : base_(std::move(base)), base_layer_(base_.get()), recent_(std::move(recent)), removed_(std::move(removed)) {
  lowest_ = base_layer_->lowest();
  highest_ = std::max(base_layer_->highest(), recent_.highest());
  if (!recent_.empty()) lowest_ = base_layer_->empty() ? recent_.lowest() : std::min(lowest_, recent_.lowest());
}

const CodeRange* CodeSnapshot::find(uintptr_t pc) const noexcept {
  if (pc < lowest_ || pc >= highest_) return nullptr;
  const CodeRange* fresh = recent_.find(pc);
  const CodeRange* old = base_layer_->find(pc, removed_.data(), removed_.size());
  if (fresh == nullptr) return old;
  if (old == nullptr) return fresh;
  // Both contain PC: nested, so the inner one starts later, or ends sooner at the same start.
  const bool fresh_inside = fresh->start != old->start ? fresh->start > old->start : fresh->end <= old->end;
  return fresh_inside ? fresh : old;
}

}  // namespace jvmkit::walk
