#include "stack_walk/request_pool.hpp"

namespace jvmkit::walk {

RequestPool::RequestPool(uint32_t slots)
    // The urgent backlog is a quarter of the pool: a nap cut short there leaves three quarters for
    // the requests that arrive while the delivery thread catches up.
    // The slots are default-initialised: the frame arrays stay untouched (and unbacked) until a
    // trace uses them.
    : slots_count_(slots),
      urgent_backlog_(slots / 4 > 0 ? slots / 4 : 1),
      slots_(new Request[slots]),
      free_(slots),
      ready_(slots) {
  for (uint32_t i = 0; i < slots; i++) free_.push(i);
}

}  // namespace jvmkit::walk
