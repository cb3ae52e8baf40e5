#include "stack_walk/code_map.hpp"

#include <algorithm>
#include <cstring>

#include "stack_walk/signal/x64/instructions.hpp"
#include "stack_walk/signal/x64/saved_registers.hpp"

namespace jvmkit::walk {

void CodeMap::add_blob(const char* name, uintptr_t start, size_t size) {
  if (name == nullptr || size == 0) return;
  CodeRange r{};
  r.start = start;
  r.end = start + size;
  r.kind = std::strcmp(name, "Interpreter") == 0 ? CodeKind::kInterpreter : CodeKind::kStub;
  r.vtable_stub = std::strcmp(name, "vtable stub") == 0 || std::strcmp(name, "itable stub") == 0;
  r.call_stub = std::strcmp(name, "call_stub") == 0;
  r.safepoint_blob = std::strcmp(name, "SafepointBlob") == 0;
  r.deopt_blob = std::strcmp(name, "DeoptimizationBlob") == 0;
  SavedRegisters saved{};
  if (r.kind == CodeKind::kStub && !r.vtable_stub &&
      read_saved_registers(reinterpret_cast<const uint8_t*>(start), size, size, &saved) && saved.pushes >= 2) {
    r.saved_end = saved.end;
    r.saved_pushes = saved.pushes;
    r.saved_depth = saved.depth;
  }
  if (r.kind == CodeKind::kStub) {
    scan_stub_frame(reinterpret_cast<const uint8_t*>(start), size, &r);
    r.cookie_frame_at = static_cast<uint16_t>(cookie_frame_made_at(reinterpret_cast<const uint8_t*>(start), size));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  r.name = names_.emplace(name).first->c_str();
  CodeRange& slot = blobs_[start];
  // The same start may be reported for a blob and for the first stub inside it: keep the
  // interpreter if either says so, and otherwise the smaller (more specific) range.
  if (slot.end == 0 || r.kind == CodeKind::kInterpreter || (slot.kind != CodeKind::kInterpreter && r.end < slot.end)) {
    slot = r;
  }
  rebuild_locked();
}

void scan_stub_frame(const uint8_t* code, size_t size, CodeRange* r) {
  // Only at the stub's first instruction (a stub's body may hold anything): "sub rsp, N", then
  // rbp stored at the frame's top.
  uint32_t n = 0;
  size_t len = 0;
  if (!decode_sub_rsp(code, size, &n, &len) || (n & 7) != 0 || n > kMaxPrologueFrame) return;
  const size_t store = rbp_store_length(code + len, size - len, n);
  if (store == 0) return;
  r->frame_size = n;
  r->prologue_begin = 0;
  r->prologue_end = static_cast<uint16_t>(len + store);
}

void scan_prologue(const uint8_t* code, size_t size, CodeRange* r) {
  // The verified entry follows the inline-cache check, within the first bytes of the code. C2:
  // "sub rsp, N; mov [rsp + N - 8], rbp". C1 and native wrappers: "push rbp; [mov rbp, rsp;]
  // sub rsp, N". Anything else leaves the frame size unknown (the physical walk stops there).
  const size_t limit = size < 160 ? size : 160;
  for (size_t i = 0; i + 7 <= limit; i++) {
    const uint8_t* p = code + i;
    uint32_t n = 0;
    size_t len = 0;
    if (!decode_sub_rsp(p, size - i, &n, &len)) continue;
    if (n == 0 || (n & 7) != 0 || n > (1u << 16)) continue;
    const size_t store = n > 8 ? rbp_store_length(p + len, size - i - len, n) : 0;
    if (store != 0) {
      r->frame_size = n;
      r->pushes_rbp = false;
      r->prologue_begin = static_cast<uint16_t>(i);
      r->prologue_end = static_cast<uint16_t>(i + len + store);
      return;
    }
    const bool push1 = i >= 1 && p[-1] == 0x55;
    // Native wrappers use HotSpot's enter(): push rbp; mov rbp, rsp.
    const bool mov_rbp_rsp = i >= 4 && is_mov_rbp_rsp(p - 3);
    const bool push4 = mov_rbp_rsp && p[-4] == 0x55;
    if (push1 || push4) {
      r->frame_size = n;
      r->pushes_rbp = true;
      r->prologue_begin = static_cast<uint16_t>(i - (push1 ? 1 : 4));
      r->prologue_end = static_cast<uint16_t>(i + len);
      return;
    }
  }
}

void CodeMap::add_nmethod(jmethodID method, uintptr_t start, size_t size, bool coarse_debug_info,
                          std::shared_ptr<const CallSites> call_sites, bool native_wrapper) {
  if (size == 0) return;
  CodeRange r{};
  r.coarse_debug_info = coarse_debug_info;
  r.start = start;
  r.end = start + size;
  r.method = method;
  r.kind = CodeKind::kNMethod;
  r.call_sites = call_sites.get();
  r.native_wrapper = native_wrapper;
  scan_prologue(reinterpret_cast<const uint8_t*>(start), size, &r);
  std::lock_guard<std::mutex> lock(mutex_);
  // A stale neighbour overlapping the new code (its unload event not seen yet) is dropped: the
  // memory now holds the new nmethod.
  auto it = nmethods_.lower_bound(start);
  if (it != nmethods_.begin() && std::prev(it)->second.end > start) it = std::prev(it);
  while (it != nmethods_.end() && it->first < r.end) {
    const uintptr_t stale = it->first;
    ++it;
    forget_nmethod_locked(stale);
  }
  nmethods_[start] = r;
  recent_[start] = r;
  if (call_sites != nullptr) call_sites_[start] = std::move(call_sites);
  publish_locked();
}

void CodeMap::remove_nmethod(uintptr_t start) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (nmethods_.count(start) == 0) return;
  forget_nmethod_locked(start);
  publish_locked();
}

void CodeMap::forget_nmethod_locked(uintptr_t start) {
  call_sites_.erase(start);
  nmethods_.erase(start);
  // Added since the base: gone from the changes. Else the base holds it: hidden from now on.
  if (recent_.erase(start) == 0) removed_.insert(start);
}

void CodeMap::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  blobs_.clear();
  nmethods_.clear();
  call_sites_.clear();
  base_.reset();
  recent_.clear();
  removed_.clear();
  cell_.publish(nullptr);
}

void CodeMap::reclaim() {
  std::lock_guard<std::mutex> lock(mutex_);
  cell_.reclaim();
}

size_t CodeMap::nmethods() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return nmethods_.size();
}

size_t CodeMap::blobs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return blobs_.size();
}

bool CodeMap::has_interpreter() const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [start, r] : blobs_) {
    if (r.kind == CodeKind::kInterpreter) return true;
  }
  return false;
}

void CodeMap::publish_locked() {
  // The changes since the base may grow to about twice the square root of its size (and at
  // least 64) before the base is rebuilt: O(sqrt N) copied per change, amortised.
  const size_t base_size = base_ == nullptr ? 0 : base_->size();
  const size_t changes = recent_.size() + removed_.size();
  if (base_ == nullptr || changes * changes > 4 * base_size + 64 * 64) {
    rebuild_locked();
    return;
  }
  std::vector<CodeRange> ranges;
  std::vector<std::shared_ptr<const CallSites>> keep;
  ranges.reserve(recent_.size());
  for (const auto& [start, r] : recent_) {
    ranges.push_back(r);
    if (auto sites = call_sites_.find(start); sites != call_sites_.end()) keep.push_back(sites->second);
  }
  link_enclosing(ranges);
  CodeLayer recent(std::move(ranges), std::move(keep));
  std::vector<uintptr_t> removed(removed_.begin(), removed_.end());
  cell_.publish(std::make_unique<CodeSnapshot>(base_, std::move(recent), std::move(removed)));
}

void CodeMap::rebuild_locked() {
  // Both maps are sorted by start already: a merge, not a sort.
  const auto order = [](const CodeRange& a, const CodeRange& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  };
  std::vector<CodeRange> all;
  all.reserve(blobs_.size() + nmethods_.size());
  auto blob = blobs_.begin();
  auto nmethod = nmethods_.begin();
  while (blob != blobs_.end() || nmethod != nmethods_.end()) {
    const bool take_blob =
        nmethod == nmethods_.end() || (blob != blobs_.end() && !order(nmethod->second, blob->second));
    all.push_back(take_blob ? (blob++)->second : (nmethod++)->second);
  }
  link_enclosing(all);
  std::vector<std::shared_ptr<const CallSites>> keep;
  keep.reserve(call_sites_.size());
  for (const auto& [start, sites] : call_sites_) keep.push_back(sites);
  base_ = std::make_shared<const CodeLayer>(std::move(all), std::move(keep));
  recent_.clear();
  removed_.clear();
  cell_.publish(std::make_unique<CodeSnapshot>(base_, CodeLayer(), std::vector<uintptr_t>()));
}

}  // namespace jvmkit::walk
