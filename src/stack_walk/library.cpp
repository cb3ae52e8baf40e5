#include "stack_walk/library.hpp"

#include "stack_walk/other_thread_request.hpp"

namespace jvmkit::walk {

Library& Library::instance() {
  static Library library;
  return library;
}

jvmtiError Library::request_thread(jthread thread, void* ucontext, const jvmtiStackTraceCallbacks& callbacks,
                                   void* user_data, const NativeAsk* native) {
  return request_other_thread(env_, thread, ucontext, callbacks, user_data, native);
}

}  // namespace jvmkit::walk
