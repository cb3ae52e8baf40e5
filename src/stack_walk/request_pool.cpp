#include "stack_walk/request_pool.hpp"

#include <sys/mman.h>

namespace jvmkit::walk {

namespace {

// An anonymous mapping, untouched (and unbacked) until a trace writes it, and not charged against
// the commit limit (MAP_NORESERVE), since most of it never is. nullptr when it cannot be made.
void* map_storage(size_t bytes) {
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return memory == MAP_FAILED ? nullptr : memory;
}

}  // namespace

RequestPool::RequestPool(uint32_t slots, jint max_frames, bool native_frames)
    // The urgent backlog is a quarter of the pool: a nap cut short there leaves three quarters for
    // the requests that arrive while the delivery thread catches up.
    : slots_count_(slots),
      max_frames_(max_frames),
      urgent_backlog_(slots / 4 > 0 ? slots / 4 : 1),
      slots_(new Request[slots]),
      free_(slots),
      ready_(slots) {
  JVMKIT_DCHECK(slots > 0 && valid_stack_depth(max_frames));
  // One mapping for every slot's frames, one more for their native PCs.
  const size_t per_slot = static_cast<size_t>(capture_depth());
  frames_bytes_ = static_cast<size_t>(slots) * per_slot * sizeof(hotspot::AsgctFrame);
  if (native_frames) {
    native_bytes_ = static_cast<size_t>(slots) * kMaxNativeFrames * sizeof(uintptr_t);
    native_pcs_ = static_cast<uintptr_t*>(map_storage(native_bytes_));
    if (native_pcs_ == nullptr) return;  // allocated() is false; no slot is ever handed out
  }
  frames_ = static_cast<hotspot::AsgctFrame*>(map_storage(frames_bytes_));
  if (frames_ == nullptr) return;
  for (uint32_t i = 0; i < slots; i++) {
    slots_[i].frames = frames_ + static_cast<size_t>(i) * per_slot;
    if (native_pcs_ != nullptr) slots_[i].native.pcs = native_pcs_ + static_cast<size_t>(i) * kMaxNativeFrames;
    free_.push(i);
  }
}

RequestPool::~RequestPool() {
  if (frames_ != nullptr) munmap(frames_, frames_bytes_);
  if (native_pcs_ != nullptr) munmap(native_pcs_, native_bytes_);
}

}  // namespace jvmkit::walk
