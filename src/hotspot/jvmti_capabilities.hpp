// can_support_virtual_threads (JVMTI 21) with the JDK 17 header jvmkit compiles against: there the
// bit after can_generate_sampled_object_alloc_events is reserved; JDK 21 and later name it. A JVM
// that does not know the bit never reports it as potential, so asking for it is harmless there.
#pragma once

#include <jvmti.h>

#include <cstddef>
#include <cstring>

namespace jvmkit::hotspot {

namespace detail {

// The bit (counted from the struct's first byte, least significant first) that follows
// can_generate_sampled_object_alloc_events, found from the compiler's own layout of that field.
inline size_t virtual_threads_bit() {
  jvmtiCapabilities probe;
  std::memset(&probe, 0, sizeof(probe));
  probe.can_generate_sampled_object_alloc_events = 1;
  const auto* bytes = reinterpret_cast<const unsigned char*>(&probe);
  for (size_t bit = 0; bit < sizeof(probe) * 8; bit++) {
    if ((bytes[bit / 8] >> (bit % 8)) & 1) return bit + 1;
  }
  return 0;
}

}  // namespace detail

inline bool can_support_virtual_threads(const jvmtiCapabilities& caps) {
  const size_t bit = detail::virtual_threads_bit();
  return (reinterpret_cast<const unsigned char*>(&caps)[bit / 8] >> (bit % 8)) & 1;
}

inline void set_can_support_virtual_threads(jvmtiCapabilities* caps) {
  const size_t bit = detail::virtual_threads_bit();
  reinterpret_cast<unsigned char*>(caps)[bit / 8] |= static_cast<unsigned char>(1u << (bit % 8));
}

}  // namespace jvmkit::hotspot
