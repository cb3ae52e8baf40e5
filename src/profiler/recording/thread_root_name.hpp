// Root frames that name a thread ("threads" option): "[NAME tid=N]" for an OS thread, "[NAME vtid=N]"
// for a virtual thread (sample_owner.hpp makes them). The converter reads them back from collapsed
// and pprof files; kept apart from the JVMTI side so that it needs no JNI header.
#pragma once

#include <string_view>

namespace jvmkit::prof {

// Whether NAME is such a root frame.
inline bool is_thread_root_name(std::string_view name) {
  return name.size() > 2 && name.front() == '[' && name.back() == ']' &&
         (name.find(" tid=") != std::string_view::npos || name.find(" vtid=") != std::string_view::npos);
}

}  // namespace jvmkit::prof
