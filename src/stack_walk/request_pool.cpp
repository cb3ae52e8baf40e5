#include "stack_walk/request_pool.hpp"

namespace jvmkit::walk {

RequestPool::RequestPool(uint32_t slots)
    // Default-initialised: the frame arrays stay untouched (and unbacked) until a trace uses them.
    : slots_count_(slots), slots_(new Request[slots]), free_(slots), ready_(slots) {
  for (uint32_t i = 0; i < slots; i++) free_.push(i);
}

}  // namespace jvmkit::walk
