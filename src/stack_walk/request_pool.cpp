#include "stack_walk/request_pool.hpp"

#include <sys/mman.h>

namespace jvmkit::walk {

RequestPool::RequestPool(uint32_t slots, jint max_frames)
    // The urgent backlog is a quarter of the pool: a nap cut short there leaves three quarters for
    // the requests that arrive while the delivery thread catches up.
    : slots_count_(slots),
      max_frames_(max_frames),
      urgent_backlog_(slots / 4 > 0 ? slots / 4 : 1),
      slots_(new Request[slots]),
      free_(slots),
      ready_(slots) {
  JVMKIT_DCHECK(slots > 0 && valid_stack_depth(max_frames));
  // One anonymous mapping for every slot's frames: untouched (and unbacked) until a trace writes
  // them, and not charged against the commit limit (MAP_NORESERVE), since most of it never is.
  const size_t per_slot = static_cast<size_t>(capture_depth());
  frames_bytes_ = static_cast<size_t>(slots) * per_slot * sizeof(hotspot::AsgctFrame);
  void* memory =
      mmap(nullptr, frames_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) return;  // allocated() is false; no slot is ever handed out
  frames_ = static_cast<hotspot::AsgctFrame*>(memory);
  for (uint32_t i = 0; i < slots; i++) {
    slots_[i].frames = frames_ + static_cast<size_t>(i) * per_slot;
    free_.push(i);
  }
}

RequestPool::~RequestPool() {
  if (frames_ != nullptr) munmap(frames_, frames_bytes_);
}

}  // namespace jvmkit::walk
